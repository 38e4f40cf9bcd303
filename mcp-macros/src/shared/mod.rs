//! What the attributes and list macros share, by stage: reading (`attr`, `docs`, `function`),
//! judging (`rules`, with `syntax`), generating (`expand`, `paths`) and the `fallback` when
//! there are errors; `ctxt` gathers the errors of every stage.

pub mod attr;
pub mod ctxt;
pub mod docs;
pub mod expand;
pub mod fallback;
pub mod function;
pub mod meta;
pub mod paths;
pub mod rules;
pub mod syntax;
