// Package web is forma's chat page: static files embedded in the binary (plain JavaScript modules, no build
// step, nothing loaded from elsewhere) that talk to the server's own OpenAI-compatible API.
//
// Handler serves the page at / and its files beside it; a server mounts it at its root next to /v1. The page
// lists models from GET /v1/models (an entry's optional context_length is shown as context use), streams
// answers from POST /v1/chat/completions with stream: true and stream_options.include_usage (content,
// reasoning_content and tool_calls deltas; usage in the final chunk), and keeps conversations and settings in
// the browser's localStorage.
//
// Model output is rendered by the page's own Markdown renderer into DOM nodes and text: it is never parsed as
// HTML, and the Content-Security-Policy Handler sends allows scripts only from the page's own files, so an
// answer containing <script> is shown, never run.
//
// Presence is for desktop launches (forma app): each open page calls POST /app/presence about every 15 seconds
// and once more when it closes, and Presence.Wait returns when no page has been open for a while. Without a
// Presence in front of it, Handler answers those calls with X-Forma-Presence: off, and the page stops calling.
package web
