fn main() {
    tables::proto(&std::env::args().nth(1).unwrap());
}
