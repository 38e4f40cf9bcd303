//! The questions besides forms: a completion from the client's model, the client's roots.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::AskError;

/// One message of a conversation handed to the client's model.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// `user` or `assistant`.
    pub role: &'static str,
    /// The message's content block, as the protocol spells it (`{"type": "text", "text": ..}`,
    /// an image, audio).
    pub content: Value,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: "user",
            content: json!({"type": "text", "text": text.into()}),
        }
    }

    /// A text message from the assistant (an earlier turn).
    pub fn assistant(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: "assistant",
            content: json!({"type": "text", "text": text.into()}),
        }
    }
}

/// A `sampling/createMessage` request, built up from the conversation.
///
/// ```
/// use mcp_runtime::ask::SamplingRequest;
///
/// let request = SamplingRequest::new(100)
///     .system_prompt("You answer in one word.")
///     .user("What colour is the sky?")
///     .temperature(0.2);
/// # let _ = request;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    messages: Vec<SamplingMessage>,
    max_tokens: u32,
    system_prompt: Option<String>,
    temperature: Option<f64>,
    stop_sequences: Vec<String>,
    model_hints: Vec<String>,
}

impl SamplingRequest {
    /// An empty conversation whose answer may be up to `max_tokens` long.
    pub fn new(max_tokens: u32) -> Self {
        SamplingRequest {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_hints: Vec::new(),
        }
    }

    /// Add a message.
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.messages.push(message);
        self
    }

    /// Add a text message from the user.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message(SamplingMessage::user(text))
    }

    /// Add a text message from the assistant.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message(SamplingMessage::assistant(text))
    }

    /// The system prompt the server would like (the client may change it).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Stop when the model produces `sequence`.
    pub fn stop_sequence(mut self, sequence: impl Into<String>) -> Self {
        self.stop_sequences.push(sequence.into());
        self
    }

    /// A hint at the model to use (a name or part of one, e.g. `claude-sonnet`), in order of
    /// preference; the client decides.
    pub fn model_hint(mut self, name: impl Into<String>) -> Self {
        self.model_hints.push(name.into());
        self
    }

    pub(super) fn to_params(&self) -> Value {
        let mut params = Map::new();
        let messages = self
            .messages
            .iter()
            .map(|message| json!({"role": message.role, "content": message.content}))
            .collect();
        params.insert("messages".into(), Value::Array(messages));
        params.insert("maxTokens".into(), self.max_tokens.into());
        if let Some(prompt) = &self.system_prompt {
            params.insert("systemPrompt".into(), prompt.clone().into());
        }
        if let Some(temperature) = self.temperature {
            params.insert("temperature".into(), temperature.into());
        }
        if !self.stop_sequences.is_empty() {
            params.insert("stopSequences".into(), self.stop_sequences.clone().into());
        }
        if !self.model_hints.is_empty() {
            let hints: Vec<Value> = self
                .model_hints
                .iter()
                .map(|name| json!({"name": name}))
                .collect();
            params.insert("modelPreferences".into(), json!({"hints": hints}));
        }
        Value::Object(params)
    }
}

/// The client model's answer to a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SampledMessage {
    /// Normally `assistant`.
    pub role: String,
    /// The content block (or, from 2025-11-25, the list of blocks) as the client sent it.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why the model stopped (`endTurn`, `maxTokens`, ...), when the client says.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// The text of the answer: its text block, or the first one of a list.
    pub fn text(&self) -> Option<&str> {
        fn text_of(block: &Value) -> Option<&str> {
            (block.get("type")? == "text")
                .then(|| block.get("text")?.as_str())
                .flatten()
        }
        match &self.content {
            Value::Array(blocks) => blocks.iter().find_map(text_of),
            block => text_of(block),
        }
    }

    pub(super) fn from_answer(answer: Value) -> Result<Self, AskError> {
        serde_json::from_value(answer)
            .map_err(|error| AskError::InvalidAnswer(format!("a sampling result: {error}")))
    }
}

/// A directory or file the client lets the server work on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file://...`).
    pub uri: String,
    /// A name to show for it.
    #[serde(default)]
    pub name: Option<String>,
}

impl Root {
    pub(super) fn from_answer(answer: Value) -> Result<Vec<Self>, AskError> {
        #[derive(Deserialize)]
        struct Roots {
            roots: Vec<Root>,
        }
        serde_json::from_value::<Roots>(answer)
            .map(|answer| answer.roots)
            .map_err(|error| AskError::InvalidAnswer(format!("a roots list: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_carry_what_was_set_and_nothing_else() {
        assert_eq!(
            SamplingRequest::new(10).user("hi").to_params(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 10})
        );
        let full = SamplingRequest::new(5)
            .system_prompt("terse")
            .assistant("earlier")
            .temperature(0.5)
            .stop_sequence("END")
            .model_hint("claude")
            .to_params();
        assert_eq!(full["systemPrompt"], "terse");
        assert_eq!(full["stopSequences"], json!(["END"]));
        assert_eq!(
            full["modelPreferences"],
            json!({"hints": [{"name": "claude"}]})
        );
    }

    #[test]
    fn answers_give_their_text() {
        let single = SampledMessage::from_answer(json!({"role": "assistant", "model": "m",
            "content": {"type": "text", "text": "blue"}, "stopReason": "endTurn"}))
        .unwrap();
        assert_eq!(single.text(), Some("blue"));
        assert_eq!(single.stop_reason.as_deref(), Some("endTurn"));
        let list = SampledMessage::from_answer(json!({"role": "assistant", "model": "m",
            "content": [{"type": "image", "data": "", "mimeType": "image/png"},
                        {"type": "text", "text": "two"}]}))
        .unwrap();
        assert_eq!(list.text(), Some("two"));
        assert!(SampledMessage::from_answer(json!({"role": "assistant"})).is_err());
        assert_eq!(
            Root::from_answer(json!({"roots": [{"uri": "file:///a", "name": "A"}]})).unwrap(),
            [Root {
                uri: "file:///a".into(),
                name: Some("A".into())
            }]
        );
    }
}
