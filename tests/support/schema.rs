//! Checks messages against the official JSON Schema of a protocol revision.
//!
//! The schema files under `tests/schemas/` are the spec's own; nothing here restates a wire
//! shape. A validator is compiled once per (revision, type) and shared by every test thread.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::Validator;
use mcp_runtime::protocol::ProtocolVersion;
use serde_json::Value;

/// The official schema document of `revision`, embedded so the tests run on any checkout.
fn schema_document(revision: ProtocolVersion) -> &'static Value {
    static DOCUMENTS: OnceLock<Mutex<HashMap<ProtocolVersion, &'static Value>>> = OnceLock::new();
    let mut documents = DOCUMENTS.get_or_init(Default::default).lock().unwrap();
    documents.entry(revision).or_insert_with(|| {
        let text = match revision {
            ProtocolVersion::V2024_11_05 => include_str!("../schemas/2024-11-05/schema.json"),
            ProtocolVersion::V2025_03_26 => include_str!("../schemas/2025-03-26/schema.json"),
            ProtocolVersion::V2025_06_18 => include_str!("../schemas/2025-06-18/schema.json"),
            ProtocolVersion::V2025_11_25 => include_str!("../schemas/2025-11-25/schema.json"),
            ProtocolVersion::V2026_07_28 => include_str!("../schemas/2026-07-28/schema.json"),
        };
        let document = serde_json::from_str(text).expect("the bundled schema is valid JSON");
        Box::leak(Box::new(document))
    })
}

/// The key holding the definitions: draft-07 schemas (up to 2025-06-18) use `definitions`,
/// 2020-12 schemas (from 2025-11-25) use `$defs`.
fn definitions_key(revision: ProtocolVersion) -> &'static str {
    if schema_document(revision).get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    }
}

/// Whether `revision`'s schema defines a type called `name`.
pub fn defines(revision: ProtocolVersion, name: &str) -> bool {
    schema_document(revision)[definitions_key(revision)]
        .get(name)
        .is_some()
}

/// The property names the schema's `type_name` declares (for "no undeclared fields" checks).
pub fn declared_properties(revision: ProtocolVersion, type_name: &str) -> Vec<String> {
    let definition = &schema_document(revision)[definitions_key(revision)][type_name];
    definition["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{revision} defines no properties for {type_name}"))
        .keys()
        .cloned()
        .collect()
}

type ValidatorCache = HashMap<(ProtocolVersion, String), Arc<Validator>>;

/// A compiled validator for the definition at `path` (a type name, optionally followed by
/// `/properties/...` to reach an inline subschema) of `revision`'s schema.
fn validator(revision: ProtocolVersion, path: &str) -> Result<Arc<Validator>, SchemaViolation> {
    static CACHE: OnceLock<Mutex<ValidatorCache>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    let key = (revision, path.to_owned());
    if let Some(validator) = cache.get(&key) {
        return Ok(validator.clone());
    }
    let type_name = path.split('/').next().unwrap_or(path);
    if !defines(revision, type_name) {
        return Err(SchemaViolation(format!(
            "the {revision} schema has no type `{type_name}`"
        )));
    }
    // The whole document with a root `$ref`, so every internal reference still resolves.
    let mut document = schema_document(revision).clone();
    document["$ref"] = Value::String(format!("#/{}/{path}", definitions_key(revision)));
    let validator = jsonschema::validator_for(&document)
        .unwrap_or_else(|error| panic!("{revision} schema for {path} does not compile: {error}"));
    let validator = Arc::new(validator);
    cache.insert(key, validator.clone());
    Ok(validator)
}

/// Why a message does not conform to the schema: names the message, the type and every error.
#[derive(Debug)]
pub struct SchemaViolation(pub String);

impl std::fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Validate `instance` against the type at `path` of `revision`'s schema.
pub fn check(
    revision: ProtocolVersion,
    path: &str,
    instance: &Value,
) -> Result<(), SchemaViolation> {
    let validator = validator(revision, path)?;
    let mut errors = validator.iter_errors(instance).peekable();
    if errors.peek().is_none() {
        return Ok(());
    }
    let mut report = format!("does not conform to {revision} `{path}`:\n  value: {instance}\n");
    for error in errors {
        let _ = writeln!(
            report,
            "  - at `{}`: {error} (schema path `{}`)",
            error.instance_path(),
            error.schema_path()
        );
    }
    Err(SchemaViolation(report))
}

/// The result type of a request `method`, when the tests know it. A result for a method the
/// revision lacks is caught by the type missing from that revision's schema.
fn result_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" => "EmptyResult",
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "resources/subscribe" | "resources/unsubscribe" => "EmptyResult",
        "completion/complete" => "CompleteResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        _ => return None,
    })
}

/// The typed error of 2026-07-28 for `code`, and whether it describes the whole response
/// (`true`) or only its `error` member (`false`): the schema models both kinds.
fn modern_error_type(code: i64) -> Option<(&'static str, bool)> {
    Some(match code {
        -32700 => ("ParseError", false),
        -32600 => ("InvalidRequestError", false),
        -32601 => ("MethodNotFoundError", false),
        -32602 => ("InvalidParamsError", false),
        -32603 => ("InternalError", false),
        -32020 => ("HeaderMismatchError", true),
        -32021 => ("MissingRequiredClientCapabilityError", true),
        -32022 => ("UnsupportedProtocolVersionError", true),
        _ => return None,
    })
}

/// Validate one non-batch message the server wrote, spoken in `revision`. `request_method` is
/// the method of the request it answers, when it answers one the tests sent.
pub fn check_server_message(
    revision: ProtocolVersion,
    request_method: Option<&str>,
    message: &Value,
) -> Result<(), SchemaViolation> {
    let legacy_envelopes = !defines(revision, "JSONRPCResultResponse");
    if message.get("method").is_some() {
        return if message.get("id").is_some() {
            check(revision, "JSONRPCRequest", message)?;
            check(revision, "ServerRequest", message)
        } else {
            check(revision, "JSONRPCNotification", message)?;
            check(revision, "ServerNotification", message)
        };
    }
    if let Some(error) = message.get("error") {
        return check_error_response(revision, legacy_envelopes, message, error);
    }
    let envelope = if legacy_envelopes {
        "JSONRPCResponse"
    } else {
        "JSONRPCResultResponse"
    };
    check(revision, envelope, message)?;
    // 2026-07-28: the three requests that may ask the client answer with questions instead.
    if message["result"]["resultType"] == "input_required" {
        return match request_method {
            Some("tools/call" | "prompts/get" | "resources/read") if revision.is_modern() => {
                check(revision, "InputRequiredResult", &message["result"])
            }
            _ => Err(SchemaViolation(format!(
                "an InputRequiredResult answers only tools/call, prompts/get and \
                 resources/read in 2026-07-28: {message}"
            ))),
        };
    }
    // The tasks extension (`io.modelcontextprotocol/tasks`): a call that became a task. The
    // extension's own schema is not among the official revision schemas, so only the base
    // `Result` is checked here; tests/stdio_tasks.rs checks its members one by one.
    if message["result"]["resultType"] == "task" {
        return match request_method {
            Some("tools/call") if revision.is_modern() => {
                check(revision, "Result", &message["result"])
            }
            _ => Err(SchemaViolation(format!(
                "a CreateTaskResult answers only 2026-07-28 tools/call: {message}"
            ))),
        };
    }
    match request_method.and_then(result_type) {
        Some(result) => check(revision, result, &message["result"]),
        None => Ok(()),
    }
}

fn check_error_response(
    revision: ProtocolVersion,
    legacy_envelopes: bool,
    message: &Value,
    error: &Value,
) -> Result<(), SchemaViolation> {
    // JSON-RPC 2.0 answers an unreadable request id with `"id": null`, but every MCP schema
    // types `RequestId` as string or integer; from 2025-11-25 on the id may be left out. So an
    // error with a null id is checked as the same envelope without its id, and for the older
    // revisions (whose envelope requires an id) as a bare `error` object.
    let id_is_null = message.get("id").is_some_and(Value::is_null);
    let mut envelope = message.clone();
    if id_is_null {
        envelope.as_object_mut().unwrap().remove("id");
    }
    let (envelope_type, error_object) = if legacy_envelopes {
        ("JSONRPCError", "JSONRPCError/properties/error")
    } else {
        ("JSONRPCErrorResponse", "Error")
    };
    if id_is_null && legacy_envelopes {
        if message["jsonrpc"] != "2.0" {
            return Err(SchemaViolation(format!(
                "error response without `\"jsonrpc\": \"2.0\"`: {message}"
            )));
        }
        check(revision, error_object, error)?;
    } else {
        check(revision, envelope_type, &envelope)?;
    }
    if revision.is_modern() {
        let code = error["code"].as_i64().unwrap_or_default();
        if code == -32002 {
            return Err(SchemaViolation(format!(
                "2026-07-28 servers must not emit -32002 (resource not found): {message}"
            )));
        }
        match modern_error_type(code) {
            Some((typed, true)) => check(revision, typed, &envelope)?,
            Some((typed, false)) => check(revision, typed, error)?,
            None => {}
        }
    }
    Ok(())
}

/// Validate one message the tests are about to send (so a test cannot pass by speaking a
/// dialect the spec does not have).
pub fn check_client_message(
    revision: ProtocolVersion,
    message: &Value,
) -> Result<(), SchemaViolation> {
    if message.get("id").is_some() {
        check(revision, "JSONRPCRequest", message)?;
        check(revision, "ClientRequest", message)
    } else {
        check(revision, "JSONRPCNotification", message)?;
        check(revision, "ClientNotification", message)
    }
}

/// Validate the array the server wrote in answer to a batch (2025-03-26 only).
pub fn check_batch_envelope(
    revision: ProtocolVersion,
    message: &Value,
) -> Result<(), SchemaViolation> {
    if !defines(revision, "JSONRPCBatchResponse") {
        return Err(SchemaViolation(format!(
            "{revision} has no JSON-RPC batches, yet the server wrote an array: {message}"
        )));
    }
    check(revision, "JSONRPCBatchResponse", message)
}
