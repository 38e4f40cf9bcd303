//! Questions about types and names as written, with no rules attached: the macros cannot
//! resolve types, so these read the tokens.

use syn::{GenericArgument, Ident, PathArguments, Type};

/// `r#type` is the name `type`.
pub fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}

/// `T` when `ty` is written `Option<T>` (or `std::option::Option<T>`, `core::...`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = peel(ty) else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let is_option = matches!(
        segments
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["Option"] | ["std" | "core", "option", "Option"]
    );
    let PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    match (is_option, args.args.len(), args.args.first()) {
        (true, 1, Some(GenericArgument::Type(inner))) => Some(inner),
        _ => None,
    }
}

/// A type as written, without the invisible groups and parentheses macros may wrap it in.
pub fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => peel(&group.elem),
        Type::Paren(paren) => peel(&paren.elem),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn option_is_recognized_by_path() {
        let ty: Type = parse_quote!(Option<u8>);
        assert!(option_inner(&ty).is_some());
        let ty: Type = parse_quote!(::std::option::Option<String>);
        assert!(option_inner(&ty).is_some());
        let ty: Type = parse_quote!(Vec<Option<u8>>);
        assert!(option_inner(&ty).is_none());
        let ty: Type = parse_quote!(my::Option<u8>);
        assert!(option_inner(&ty).is_none());
    }
}
