//! The crate's one error type.

use std::path::{Path, PathBuf};

/// Everything that can go wrong while reading a table's metadata.
///
/// `Display` is `<path>[:<line>]: <reason>`, so the binary prints
/// `lakeaudit: {error}`. The path is the file at fault (a commit, a
/// checkpoint, a manifest, a deletion-vector file) or the table directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file (commit, checkpoint, metadata) holds something that is not
    /// what the format says.
    #[error("{}{}: {reason}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line, for JSON-lines files.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// The Delta log has a gap: a commit the replay needs is missing.
    #[error("{}: commit {version:020}.json is missing ({detail})", log.display())]
    MissingCommit {
        /// The `_delta_log` directory.
        log: PathBuf,
        /// The missing version.
        version: u64,
        /// What the log has around it.
        detail: String,
    },
    /// `_last_checkpoint` and the checkpoint files disagree.
    #[error("{}: {reason}", path.display())]
    Checkpoint {
        /// `_last_checkpoint` or the checkpoint file.
        path: PathBuf,
        /// The disagreement.
        reason: String,
    },
    /// A Parquet checkpoint or sidecar could not be read.
    #[error("{}: not a readable Parquet checkpoint: {reason}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        reason: String,
    },
    /// An Iceberg manifest or manifest list could not be decoded.
    #[error("{}: {reason}", path.display())]
    Avro {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// A deletion vector (its descriptor, file or blob) is invalid.
    #[error("{}: {reason}", path.display())]
    DeletionVector {
        /// The DV file, or the commit holding an inline DV.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A directory named as a table holds no table metadata, or a path holds
    /// no table at all.
    /// The version asked for (time travel) is not in the table's
    /// metadata any more (Delta: its commits and checkpoints removed;
    /// Iceberg: the snapshot expired), or never was.
    #[error("{}: version {version} cannot be read: {reason}", path.display())]
    VersionGone {
        /// The table directory.
        path: PathBuf,
        /// The version or snapshot id asked for.
        version: i64,
        /// Why.
        reason: String,
    },
    #[error("{}: {reason}", path.display())]
    NoTable {
        /// The directory.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// Metadata names a file outside the table directory and the locations
    /// the table declares for its files (after resolving `..` and
    /// symlinks), and the user did not pass `--allow-outside-table`.
    #[error("{}: {what} {} resolves outside the table {}; refused (--allow-outside-table reads it)", path.display(), target.display(), root.display())]
    OutsideTable {
        /// The metadata file naming it (or the table directory).
        path: PathBuf,
        /// What the metadata calls it ("deletion vector file", "manifest").
        what: String,
        /// The path as the metadata gives it, mapped onto this machine.
        target: PathBuf,
        /// The table directory.
        root: PathBuf,
    },
    /// A file to read is not a regular file (a FIFO, a device, a
    /// directory): it is never opened for reading.
    #[error("{}: is {kind}, not a regular file; refused", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// A file is larger than the cap for its kind (see the README,
    /// "Untrusted input").
    #[error("{}: {size} bytes is more than the {cap}-byte cap for this kind of file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// An Iceberg position delete file that cannot be read as Parquet.
    #[error("{}: position delete file: {reason}", path.display())]
    DeleteFile {
        /// The delete file.
        path: PathBuf,
        /// What it is instead, or what the reader said.
        reason: String,
    },
    /// The metadata is readable but breaks the format's rules in a way the
    /// audit cannot work around.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The rule broken.
        reason: String,
    },
    /// A panic while searching `paths` for tables (in this crate or a
    /// dependency): the search's one error.
    #[error(
        "{}: internal error while searching for tables: {message}",
        joined(paths)
    )]
    SearchPanicked {
        /// The paths searched.
        paths: Vec<PathBuf>,
        /// The panic's message.
        message: String,
    },
    /// A panic while reading (or judging) one table: that table's error.
    #[error("{}: internal error while reading the table: {message}", dir.display())]
    ReadPanicked {
        /// The table directory.
        dir: PathBuf,
        /// The panic's message.
        message: String,
    },
}

fn joined(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The file the error names.
    pub fn path(&self) -> &Path {
        match self {
            Error::Io { path, .. }
            | Error::Json { path, .. }
            | Error::Checkpoint { path, .. }
            | Error::Parquet { path, .. }
            | Error::Avro { path, .. }
            | Error::DeletionVector { path, .. }
            | Error::NoTable { path, .. }
            | Error::VersionGone { path, .. }
            | Error::Invalid { path, .. }
            | Error::OutsideTable { path, .. }
            | Error::NotRegular { path, .. }
            | Error::TooLarge { path, .. }
            | Error::DeleteFile { path, .. } => path,
            Error::MissingCommit { log, .. } => log,
            Error::ReadPanicked { dir, .. } => dir,
            Error::SearchPanicked { paths, .. } => paths.first().map_or(Path::new(""), |p| p),
        }
    }
}

/// Why a file's bytes were refused, before the file is named: what the
/// Parquet footer and page checks ([`crate::thrift_check`],
/// [`crate::parquet_footer`]) found. An [`Error`] names the file and
/// carries it as its reason; `Display` is that reason's text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Reason {
    /// A read or seek failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The footer's Thrift ends inside a value.
    #[error("the footer ends inside a value")]
    FooterEndsInsideValue,
    /// A Thrift varint of more than 64 bits in the footer.
    #[error("a varint longer than 64 bits")]
    VarintTooLong,
    /// A binary value longer than what is left of the footer.
    #[error("a value claims {claims} bytes where {left} are left")]
    ValueOverrun {
        /// The bytes it claims.
        claims: u64,
        /// The bytes left.
        left: u64,
    },
    /// A container declaring more elements than the footer has bytes.
    #[error("a {container} claims {elements} elements where {left} bytes are left")]
    ContainerOverrun {
        /// `list` or `map`.
        container: &'static str,
        /// The elements it claims.
        elements: u64,
        /// The bytes left.
        left: u64,
    },
    /// Structs or containers nested deeper than `max`.
    #[error("values nested deeper than {max}")]
    TooDeep {
        /// The deepest nesting accepted.
        max: usize,
    },
    /// A list of booleans in a field Parquet does not declare.
    #[error("a list of {elements} booleans in a field Parquet does not declare (the decoder would misread the rest of the footer)")]
    BooleanList {
        /// Its declared length.
        elements: u64,
    },
    /// A Thrift type the compact protocol does not have.
    #[error("an unknown Thrift type {thrift_type}")]
    UnknownThriftType {
        /// The type nibble.
        thrift_type: u8,
    },
    /// A field `parquet.thrift` declares, of another type.
    #[error("field {id} of {parent} has Thrift type {found} where Parquet's has {want}")]
    WrongFieldType {
        /// The field id.
        id: i64,
        /// The Parquet struct holding it (`FileMetaData`, `RowGroup`, ...).
        parent: &'static str,
        /// Its type in the file.
        found: u8,
        /// Its type in `parquet.thrift`.
        want: u8,
    },
    /// A list whose elements are not of the type Parquet declares.
    #[error("a list of Thrift type {found} where Parquet's elements have type {want}")]
    WrongListType {
        /// The element type in the file.
        found: u8,
        /// The element type in `parquet.thrift`.
        want: u8,
    },
    /// Not a Parquet file: what its first bytes look like.
    #[error("is {looks_like}")]
    NotParquet {
        /// [`crate::parquet_footer::sniff`]'s answer.
        looks_like: &'static str,
    },
    /// Fewer bytes than the two magics and a footer length.
    #[error("{len} bytes is too short for a Parquet file")]
    TooShort {
        /// The file's length.
        len: u64,
    },
    /// No `PAR1` at the end.
    #[error("no PAR1 magic at the end: truncated, or not Parquet")]
    NoEndMagic,
    /// A footer length larger than the file.
    #[error("footer length runs past the start of the file (truncated?)")]
    FooterPastStart,
    /// A footer over the cap.
    #[error("a footer of {footer} bytes is over the {cap}-byte cap")]
    FooterOverCap {
        /// The footer's length.
        footer: u64,
        /// The cap.
        cap: u64,
    },
    /// The footer's Thrift lies (what [`crate::thrift_check`] found).
    #[error("footer does not decode: {0}")]
    FooterLies(Box<Reason>),
    /// polars' footer decoder refused the footer (its message).
    #[error("footer does not decode: {message}")]
    FooterDecode {
        /// What polars said.
        message: String,
    },
    /// polars' footer decoder panicked on the footer.
    #[error("footer does not decode: the Parquet decoder failed on it (a lying size, offset or field type)")]
    FooterDecoderPanicked,
    /// Something wrong in one column chunk of one row group.
    #[error("row group {row_group}, column {column}: {what}")]
    InChunk {
        /// The row group (0-based).
        row_group: usize,
        /// The column's path, dotted.
        column: String,
        /// What is wrong.
        what: Box<Reason>,
    },
    /// Something wrong in one page of a column chunk.
    #[error("page {page}: {what}")]
    InPage {
        /// The page (0-based, in the chunk).
        page: u64,
        /// What is wrong.
        what: Box<Reason>,
    },
    /// A page header that does not decode.
    #[error("header {0}")]
    PageHeader(Box<Reason>),
    /// A page header running past the end of its column chunk.
    #[error("runs past the end of its column chunk (truncated, or not a page header)")]
    HeaderPastChunk,
    /// A page header cut short by the end of the file.
    #[error("ends early (truncated, or not a page header)")]
    HeaderEndsEarly,
    /// A varint of more than 10 bytes in a page header.
    #[error("has a number over 10 bytes")]
    HeaderNumberTooLong,
    /// A page header nested deeper than any.
    #[error("nests deeper than any page header")]
    HeaderTooDeep,
    /// A field type the compact protocol does not have, in a page header.
    #[error("has an unknown field type {thrift_type}")]
    HeaderUnknownType {
        /// The type nibble.
        thrift_type: u8,
    },
    /// A field id out of range in a page header.
    #[error("has a bad field id")]
    HeaderBadFieldId,
    /// A page header without its two sizes.
    #[error("lacks its page sizes")]
    HeaderNoSizes,
    /// A negative page size.
    #[error("negative size in its header")]
    PageNegativeSize,
    /// A page larger, uncompressed, than its column chunk.
    #[error("its header says {plain} bytes uncompressed, more than its column chunk's {chunk}")]
    PageOverChunk {
        /// The page's uncompressed size.
        plain: u64,
        /// The chunk's uncompressed size.
        chunk: u64,
    },
    /// A page placed past the end of its column chunk.
    #[error("its header places the page past the end of its column chunk")]
    PagePastChunk,
    /// A negative offset or size of a column chunk.
    #[error("negative offset or size in the footer")]
    ChunkNegative,
    /// A column chunk's compressed size over the cap.
    #[error("the footer's compressed size is over the {cap}-byte cap")]
    ChunkCompressedOverCap {
        /// The cap.
        cap: u64,
    },
    /// A column chunk's uncompressed size negative or over the cap.
    #[error("the footer's uncompressed size is negative or over the {cap}-byte cap")]
    ChunkUncompressedOverCap {
        /// The cap.
        cap: u64,
    },
    /// A column chunk placed outside the file's data.
    #[error("the footer places the column chunk outside the file's data")]
    ChunkOutsideData,
    /// The footer's row count and its row groups' disagree.
    #[error("the footer says {footer} rows, its row groups hold {groups}")]
    RowCountMismatch {
        /// The footer's `num_rows`.
        footer: u64,
        /// The sum of its row groups' rows.
        groups: u64,
    },
    /// A negative value count of a column chunk in the footer.
    #[error("a negative value count in the footer")]
    NegativeChunkValues,
    /// A flat column whose value count is not its row group's rows.
    #[error("the footer says {values} values for {rows} rows")]
    ValuesForRows {
        /// The chunk's value count.
        values: u64,
        /// The row group's rows.
        rows: u64,
    },
    /// The columns read would decode to more than the cap.
    #[error("its footer's rows ({rows}) would decode to over {max} bytes in the columns read")]
    DecodesOver {
        /// The footer's rows.
        rows: u64,
        /// The cap.
        max: u64,
    },
    /// A page header polars' Thrift decoder refuses.
    #[error("its header does not decode")]
    PageHeaderUndecodable,
    /// A page over the page cap, uncompressed.
    #[error("its header says {size} bytes uncompressed, over the {cap}-byte page cap")]
    PageOverCap {
        /// The page's uncompressed size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A page running past the end of its column chunk.
    #[error("runs past the end of its column chunk")]
    PageRunsPastChunk,
    /// A page cut short by the end of the file.
    #[error("ends early (truncated)")]
    PageEndsEarly,
    /// A dictionary page without its dictionary header.
    #[error("a dictionary page without its header")]
    NoDictionaryHeader,
    /// A negative dictionary size.
    #[error("a negative dictionary size")]
    NegativeDictionarySize,
    /// A dictionary claiming more entries than its bytes can hold.
    #[error("its dictionary says {entries} entries, more than its {size} bytes can hold")]
    DictionaryOverflow {
        /// The entries it claims.
        entries: u64,
        /// Its uncompressed size.
        size: u64,
    },
    /// A v2 data page with more nulls than values (or fewer than none).
    #[error("its header says {nulls} nulls of {values} values")]
    NullsOverValues {
        /// The nulls it claims.
        nulls: i64,
        /// Its values.
        values: i64,
    },
    /// A data page without its data page header.
    #[error("a data page without its header")]
    NoDataPageHeader,
    /// A negative value count of a page.
    #[error("a negative value count")]
    NegativePageValues,
    /// Pages holding more values than the footer says of their chunk.
    #[error("the pages hold more values ({seen} so far) than the footer's {footer}")]
    MoreValuesThanFooter {
        /// Values counted so far.
        seen: u64,
        /// The footer's count.
        footer: u64,
    },
    /// A negative level length in a v2 page header.
    #[error("a negative level length")]
    NegativeLevelLength,
    /// A v2 page's levels longer than the page.
    #[error("its levels run past the page")]
    LevelsPastPage,
    /// A page its codec cannot decompress (the codec's message).
    #[error("does not decompress: {message}")]
    Decompress {
        /// What the codec said.
        message: String,
    },
    /// A page type Parquet does not have.
    #[error("an unknown page type {page_type}")]
    UnknownPageType {
        /// The page type.
        page_type: i32,
    },
    /// A chunk whose pages hold another number of values than the footer's.
    #[error("the pages hold {seen} values, the footer says {footer}")]
    ValueCountMismatch {
        /// Values in the pages.
        seen: u64,
        /// The footer's count.
        footer: u64,
    },
    /// Dictionary indices wider than 32 bits.
    #[error("its dictionary indices are {bits} bits wide")]
    IndexWidth {
        /// Their declared width.
        bits: u8,
    },
    /// A delta encoding's header cut short.
    #[error("its delta encoding's header is cut short")]
    DeltaHeaderCut,
    /// A delta encoding claiming more values than its page.
    #[error("its delta encoding says {total} values, the page {page}")]
    DeltaOverPage {
        /// The values it claims.
        total: u64,
        /// The page's values.
        page: u64,
    },
    /// A delta encoding's block shape the format does not allow.
    #[error("its delta encoding has blocks of {block} values in {miniblocks} miniblocks")]
    DeltaBlocks {
        /// Values per block.
        block: u64,
        /// Miniblocks per block.
        miniblocks: u64,
    },
    /// A length-prefixed section (levels, boolean values) cut short.
    #[error("its {what} are cut short")]
    SectionCut {
        /// `repetition levels`, `definition levels`, `boolean values`.
        what: &'static str,
    },
    /// A length-prefixed section longer than the page.
    #[error("its {what} run past the page")]
    SectionPastPage {
        /// As in [`Reason::SectionCut`].
        what: &'static str,
    },
    /// An RLE/bit-packed run header cut short.
    #[error("its {what} have a run header cut short")]
    RunHeaderCut {
        /// Levels, dictionary indices or boolean values.
        what: &'static str,
    },
    /// An RLE/bit-packed run past the page's values.
    #[error("its {what} have a run of {count} values, past the page's {values}")]
    RunPastPage {
        /// Levels, dictionary indices or boolean values.
        what: &'static str,
        /// The run's values.
        count: u64,
        /// The page's values.
        values: u64,
    },
    /// Z85 text whose length is not a multiple of 5.
    #[error("Z85 text of {chars} characters is not a multiple of 5")]
    Z85Length {
        /// Its length.
        chars: usize,
    },
    /// A character outside the Z85 alphabet.
    #[error("{character:?} is not a Z85 character")]
    Z85Character {
        /// The character.
        character: char,
    },
    /// A Z85 group over 32 bits.
    #[error("Z85 group overflows 32 bits")]
    Z85Overflow,
    /// A bitmap cut short at a byte.
    #[error("bitmap truncated at byte {at}")]
    BitmapTruncated {
        /// The offset in the bitmap.
        at: usize,
    },
    /// A bitmap cut short in one of its parts.
    #[error("bitmap truncated in its {part}")]
    BitmapTruncatedIn {
        /// `run flags`, `container headers`, `container offsets`.
        part: &'static str,
    },
    /// Not a Roaring bitmap's cookie.
    #[error("unknown Roaring cookie (not a Roaring bitmap)")]
    RoaringCookie,
    /// More containers than 2^16.
    #[error("more containers than a 32-bit bitmap holds")]
    TooManyContainers,
    /// Container keys out of order.
    #[error("container keys not increasing at container {container}")]
    KeysNotIncreasing {
        /// The container.
        container: usize,
    },
    /// A run overlapping the one before or past 2^16.
    #[error("run {run} of container {container} overlaps or overflows")]
    RunOverlaps {
        /// The run.
        run: usize,
        /// The container.
        container: usize,
    },
    /// An array container out of order.
    #[error("array container {container} is not sorted")]
    ArrayNotSorted {
        /// The container.
        container: usize,
    },
    /// A bitset container cut short.
    #[error("bitmap truncated in bitset container {container}")]
    BitsetTruncated {
        /// The container.
        container: usize,
    },
    /// A container holding another number of values than its header.
    #[error("container {container} holds a different number of values than its header says")]
    CardinalityMismatch {
        /// The container.
        container: usize,
    },
    /// A 64-bit bitmap without its bucket count.
    #[error("bitmap shorter than its bucket count")]
    NoBucketCount,
    /// A bucket key with its sign bit set.
    #[error("bucket {bucket} key has its sign bit set (positions must be positive)")]
    BucketSignBit {
        /// The bucket.
        bucket: u64,
    },
    /// Bucket keys out of order.
    #[error("bucket keys not increasing at bucket {bucket}")]
    BucketsNotIncreasing {
        /// The bucket.
        bucket: u64,
    },
    /// Bytes after a 64-bit bitmap's last bucket.
    #[error("{left} bytes left after the bitmap's last bucket")]
    BytesAfterBitmap {
        /// How many.
        left: usize,
    },
    /// A deletion vector shorter than its magic number.
    #[error("deletion vector shorter than its magic number")]
    NoMagic,
    /// Not the deletion vectors' magic number.
    #[error("magic number is not {expected} (not a portable Roaring deletion vector)")]
    WrongMagic {
        /// [`crate::dv::MAGIC`].
        expected: u32,
    },
    /// A file that ends before a framed deletion vector's offset.
    #[error("file of {len} bytes ends before offset {offset}")]
    FileEndsBefore {
        /// The file's length.
        len: usize,
        /// The offset.
        offset: usize,
    },
    /// The size stored before a deletion vector is not the metadata's.
    #[error("the size stored before the deletion vector differs from the metadata's {metadata}")]
    StoredSizeDiffers {
        /// The metadata's size.
        metadata: usize,
    },
    /// A deletion vector past the end of its file.
    #[error("deletion vector runs past the end of the file")]
    DvPastEnd,
    /// A deletion vector without its CRC-32.
    #[error("deletion vector has no CRC-32")]
    NoCrc,
    /// A CRC-32 that is not that of the deletion vector's bytes.
    #[error("CRC-32 mismatch: the stored checksum is not that of the bytes")]
    CrcMismatch,
    /// A relative Delta DV path shorter than its Z85 UUID.
    #[error("relative DV path {text:?} is shorter than a Z85 UUID")]
    DvPathTooShort {
        /// The path as the descriptor gives it.
        text: String,
    },
    /// A Z85 UUID that does not decode to 16 bytes.
    #[error("Z85 UUID is not 16 bytes")]
    UuidLength,
    /// A Delta DV storage type other than `u`, `i`, `p`.
    #[error("unknown deletion vector storage type {storage:?}")]
    DvStorageType {
        /// The storage type.
        storage: String,
    },
    /// An Iceberg DV's declared size over the cap.
    #[error("content_size_in_bytes {size} is over the {cap}-byte cap for a deletion vector")]
    DvOverCap {
        /// The declared size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A Puffin blob past the end of its file.
    #[error("blob at offset {offset} of content_size_in_bytes {size} runs past the end of the file ({len} bytes)")]
    BlobPastEnd {
        /// The blob's offset.
        offset: u64,
        /// Its declared size.
        size: u64,
        /// The file's length.
        len: u64,
    },
    /// Something wrong in the Puffin blob at an offset.
    #[error("blob at offset {offset}: {what}")]
    InBlob {
        /// The blob's offset.
        offset: u64,
        /// What is wrong.
        what: Box<Reason>,
    },
    /// A Delta commit line that is not the JSON of an action (serde's
    /// message).
    #[error(transparent)]
    ActionJson(serde_json::Error),
    /// An `add`'s stats that are not JSON.
    #[error("stats are not JSON: {0}")]
    StatsNotJson(serde_json::Error),
    /// A domain configuration that is not JSON.
    #[error("not JSON: {0}")]
    ConfigurationNotJson(serde_json::Error),
    /// A `delta.clustering` configuration without its list.
    #[error("no clusteringColumns list")]
    NoClusteringColumns,
    /// A clustering column's name part that is not a string.
    #[error("clustering column part {part} is not a string")]
    ClusteringPart {
        /// The part, as JSON.
        part: serde_json::Value,
    },
    /// A clustering column that is neither a name nor a list of parts.
    #[error("clustering column {column} is not a name")]
    ClusteringColumn {
        /// The column, as JSON.
        column: serde_json::Value,
    },
    /// An Avro file that ends inside a number.
    #[error("file ends inside a number")]
    AvroEndsInNumber,
    /// An Avro number over 10 bytes.
    #[error("a number runs over 10 bytes")]
    AvroNumberTooLong,
    /// A negative Avro length.
    #[error("negative length")]
    AvroNegativeLength,
    /// An Avro length larger than the file.
    #[error("a length of {length} bytes is more than the file holds")]
    AvroLengthOverFile {
        /// The length.
        length: u64,
    },
    /// An Avro file that ends inside a string.
    #[error("file ends inside a string")]
    AvroEndsInString,
    /// An Avro file shorter than its magic.
    #[error("too short for an Avro file")]
    AvroTooShort,
    /// No Avro magic.
    #[error("not an Avro object container file (no Obj magic)")]
    AvroNoMagic,
    /// A header map block count that cannot be negated.
    #[error("bad header map block count")]
    AvroHeaderCount,
    /// An Avro file that ends inside its header's sync marker.
    #[error("file ends inside the header's sync marker")]
    AvroEndsInSync,
    /// A codec lakeaudit does not read.
    #[error("its avro.codec is not one lakeaudit reads (null, deflate, snappy, zstandard)")]
    AvroCodec,
    /// Something wrong in one Avro block.
    #[error("block {block}: {what}")]
    InBlock {
        /// The block (0-based).
        block: u64,
        /// What is wrong.
        what: Box<Reason>,
    },
    /// A snappy block whose length does not decode (snap's message).
    #[error(transparent)]
    Snappy(snap::Error),
    /// A block that does not inflate.
    #[error("block {block} does not inflate: {source}")]
    BlockInflate {
        /// The block.
        block: u64,
        /// What the decoder said.
        source: std::io::Error,
    },
    /// A block over the cap, decompressed.
    #[error("block {block} decompresses to more than the {cap}-byte cap ({size} bytes or more)")]
    BlockOverCap {
        /// The block.
        block: u64,
        /// The cap.
        cap: u64,
        /// What was inflated before stopping.
        size: u64,
    },
    /// A block without its sync marker.
    #[error("file ends before its sync marker")]
    AvroEndsBeforeSync,
    /// A block's sync marker that is not the header's.
    #[error("sync marker differs from the header's")]
    SyncDiffers,
}
