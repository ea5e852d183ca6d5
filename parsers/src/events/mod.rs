//! Event dispatch and execution assembly. (Being written.)
