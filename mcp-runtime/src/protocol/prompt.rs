//! What prompt handlers produce, independent of any revision: messages with roles.

use std::borrow::Cow;

use super::{Content, Icon, ResourceContents, Role};

/// One message of a prompt: a role and one block of content.
///
/// ```
/// use mcp_runtime::protocol::{Content, PromptMessage, Role};
///
/// let question = PromptMessage::user("What does `{+path}` match?");
/// assert_eq!(question.role, Role::User);
/// let answer = PromptMessage::assistant("Any text, slashes included.");
/// assert_eq!(answer.content, Content::text("Any text, slashes included."));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message from `role` holding `content`.
    pub fn new(role: Role, content: Content) -> Self {
        PromptMessage { role, content }
    }

    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::text(text))
    }

    /// A user message embedding a resource's contents, so the model reads it with the prompt.
    pub fn user_resource(resource: ResourceContents) -> Self {
        Self::new(Role::User, Content::Resource { resource })
    }
}

/// The outcome of one `prompts/get`: the messages, and optionally a description of this
/// particular rendering of the prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GetPromptResult {
    /// A description of the result (not of the prompt in general).
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
    /// The result's `_meta` (every revision has it on results).
    pub meta: super::Meta,
}

impl GetPromptResult {
    /// A result holding `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            description: None,
            messages,
            meta: super::Meta::new(),
        }
    }

    /// The same result with a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With this `_meta`, replacing any it had.
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// Everything `prompts/list` says about one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptDefinition {
    /// The unique name clients get the prompt by.
    pub name: Cow<'static, str>,
    /// A human-readable name (sent from 2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// What the prompt is for.
    pub description: Option<Cow<'static, str>>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgumentDefinition>,
    /// Icons a client may show (sent from 2025-11-25 on).
    pub icons: Vec<Icon>,
    /// Its `_meta` (sent from 2025-06-18 on).
    pub meta: super::Meta,
}

impl PromptDefinition {
    /// With one more icon (sent from 2025-11-25 on).
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// With this `_meta` (sent from 2025-06-18 on), replacing any it had.
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgumentDefinition {
    /// Its name in `prompts/get`'s `arguments`.
    pub name: Cow<'static, str>,
    /// A human-readable name (sent from 2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// What to pass.
    pub description: Option<Cow<'static, str>>,
    /// Whether the client must pass it.
    pub required: bool,
}
