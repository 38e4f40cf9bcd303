//! Examples and end-to-end tests of the workspace; nothing to import.
