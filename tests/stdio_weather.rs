//! The `weather` example, driven as a client would drive it over a real pipe, in every
//! revision.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, assert_text, assert_tool_error_mentions, per_revision};

fn weather(revision: ProtocolVersion) -> Client {
    Client::open(ServerProcess::example("weather"), revision)
}

fn get_weather(client: &mut Client, arguments: Value) -> Value {
    client.call_tool("get_weather", arguments)
}

fn lists_get_weather_with_a_unit_enum_defaulting_to_celsius(revision: ProtocolVersion) {
    let mut client = weather(revision);
    let tools = client.list_all_tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    let schema = &tools[0]["inputSchema"];
    assert_eq!(tools[0]["name"], "get_weather");
    assert_eq!(schema["required"], json!(["city"]), "{schema}");
    let units = &schema["properties"]["units"];
    assert_eq!(units["enum"], json!(["celsius", "fahrenheit"]), "{units}");
    assert_eq!(units["default"], "celsius", "{units}");
}

fn answers_json_from_the_table(revision: ProtocolVersion) {
    let mut client = weather(revision);
    assert_text(
        &get_weather(&mut client, json!({"city": "Paris"})),
        r#"{"city":"Paris","temperature":18.5,"units":"celsius","condition":"partly cloudy","humidity":62}"#,
    );
    let oslo = get_weather(&mut client, json!({"city": "OSLO", "units": "fahrenheit"}));
    let report: Value = serde_json::from_str(&support::text_of(&oslo)).unwrap();
    assert_eq!(
        report,
        json!({"city": "Oslo", "temperature": 26.6, "units": "fahrenheit", "condition": "snow", "humidity": 90})
    );
}

fn an_unknown_city_is_a_tool_error_naming_it(revision: ProtocolVersion) {
    let mut client = weather(revision);
    let result = get_weather(&mut client, json!({"city": "Atlantis"}));
    assert_tool_error_mentions(&result, &["Atlantis", "Paris"]);
}

fn an_unknown_unit_is_an_argument_error(revision: ProtocolVersion) {
    let mut client = weather(revision);
    let result = get_weather(&mut client, json!({"city": "Paris", "units": "kelvin"}));
    assert_tool_error_mentions(&result, &["units", "celsius", "fahrenheit"]);
}

per_revision!(all:
    lists_get_weather_with_a_unit_enum_defaulting_to_celsius,
    answers_json_from_the_table,
    an_unknown_city_is_a_tool_error_naming_it,
    an_unknown_unit_is_an_argument_error,
);
