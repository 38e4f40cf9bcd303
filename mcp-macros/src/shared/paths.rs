//! The one place that spells the path to the runtime: everything generated reaches it as
//! `::mcp_runtime::__private::...`, so a rename or a re-export changes this file only.

use proc_macro2::TokenStream;
use quote::quote;

/// `::mcp_runtime::__private`.
pub fn private() -> TokenStream {
    quote!(::mcp_runtime::__private)
}
