//! Event-log sources: discovery, codecs and line reading. (Being written.)
