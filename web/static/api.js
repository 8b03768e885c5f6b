// The server's OpenAI-compatible API: the model list and streamed chat completions.

// listModels returns the models the server offers: [{id, context}], context being the context length in tokens
// when the server says it (0 otherwise).
export async function listModels() {
  const r = await fetch("/v1/models");
  if (!r.ok) throw new Error(await errorText(r));
  const body = await r.json();
  return (body.data || []).map((m) => ({
    id: String(m.id),
    context: Number(m.context_length || m.max_context_length || m.meta?.n_ctx || m.meta?.n_ctx_train || 0),
  }));
}

async function errorText(r) {
  const text = await r.text();
  try {
    const e = JSON.parse(text).error;
    if (e) return typeof e === "string" ? e : e.message || text;
  } catch {
    // not JSON: the text itself
  }
  return text.trim() || r.status + " " + r.statusText;
}

// streamChat posts a chat completion request with stream: true and yields what each event adds:
// {content, reasoning, toolCalls: [{index, id, name, arguments}], usage, finish}. signal aborts it.
export async function* streamChat(request, signal) {
  const r = await fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
    signal,
  });
  if (!r.ok) throw new Error(await errorText(r));
  for await (const data of events(r.body)) {
    if (data === "[DONE]") return;
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new Error("the server sent an event that is not JSON: " + data.slice(0, 80));
    }
    if (chunk.error) throw new Error(chunk.error.message || String(chunk.error));
    const choice = chunk.choices?.[0] || {};
    const d = choice.delta || {};
    yield {
      content: typeof d.content === "string" ? d.content : "",
      reasoning: d.reasoning_content || d.reasoning || "",
      toolCalls: (d.tool_calls || []).map((t, k) => ({
        index: t.index ?? k, id: t.id || "", name: t.function?.name || "", arguments: t.function?.arguments || "",
      })),
      usage: chunk.usage || null,
      finish: choice.finish_reason || "",
    };
  }
}

// events yields the data of each server-sent event of a response body.
async function* events(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (data.length) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line[5] === " " ? 6 : 5));
      }
    }
  }
  if (data.length) yield data.join("\n");
}
