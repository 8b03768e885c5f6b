// The chat page: conversations, the composer, streaming answers, settings. Model text reaches the page only
// through markdown.js (DOM nodes and text, never HTML) or textContent.

import { render } from "./markdown.js";
import { listModels, streamChat } from "./api.js";
import { loadConversations, saveConversations, loadSettings, saveSettings, newId } from "./store.js";
import { startHeartbeat } from "./heartbeat.js";

const $ = (id) => document.getElementById(id);
const ui = {
  app: $("app"), sidebar: $("sidebar"), scrim: $("scrim"), list: $("conversations"), newChat: $("new-chat"),
  toggleSidebar: $("toggle-sidebar"), model: $("model"), context: $("context"), toggleSettings: $("toggle-settings"),
  settings: $("settings"), messages: $("messages"), empty: $("empty"), notice: $("notice"), composer: $("composer"),
  input: $("input"), send: $("send"),
};
const SETTING_FIELDS = ["system", "temperature", "top_p", "top_k", "max_tokens", "seed"];

let conversations = loadConversations();
let current = null; // the conversation shown; null for a new one not yet sent
let settings = loadSettings();
let models = [];
let streaming = null; // {controller, conv, msg, view}

function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) e.append(c);
  return e;
}

function button(label, cls, onClick, title) {
  const b = el("button", cls, label);
  b.type = "button";
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function notify(text) {
  ui.notice.textContent = text;
  ui.notice.hidden = !text;
}

function persist() {
  notify(saveConversations(conversations));
}

// --- conversations -----------------------------------------------------------------------------------------

function renderList() {
  ui.list.replaceChildren(...conversations.map((c) => {
    const open = button(c.title || "New chat", "conversation-title", () => { select(c.id); closeSidebar(); });
    const del = button("\u00d7", "icon-button delete", () => remove(c.id), "Delete this conversation");
    del.setAttribute("aria-label", "Delete " + (c.title || "conversation"));
    const li = el("li", "conversation" + (current && c.id === current.id ? " active" : ""), open, del);
    li.dataset.id = c.id;
    return li;
  }));
}

function select(id) {
  if (streaming) return;
  current = conversations.find((c) => c.id === id) || null;
  renderList();
  renderMessages();
}

function remove(id) {
  if (streaming && streaming.conv.id === id) streaming.controller.abort();
  conversations = conversations.filter((c) => c.id !== id);
  if (current && current.id === id) current = null;
  persist();
  renderList();
  renderMessages();
}

function newChat() {
  if (streaming) return;
  current = null;
  renderList();
  renderMessages();
  closeSidebar();
  ui.input.focus();
}

// --- messages ----------------------------------------------------------------------------------------------

function renderMessages() {
  const msgs = current ? current.messages : [];
  ui.empty.hidden = msgs.length > 0;
  ui.messages.replaceChildren(ui.empty, ...msgs.map((m, i) => messageView(m, i)));
  renderContext();
  scrollDown(true);
}

// messageView builds a message's element; fill (re)renders its changing parts.
function messageView(msg, index) {
  const view = {
    root: el("article", "msg " + msg.role),
    head: el("div", "msg-head"),
    reasoning: el("details", "reasoning"),
    reasoningBody: el("div", "reasoning-body markdown"),
    tools: el("div", "tool-calls"),
    content: el("div", "content markdown"),
    stats: el("span", "stats"),
    actions: el("span", "actions"),
  };
  view.root.dataset.index = index;
  view.reasoning.append(el("summary", null, "Reasoning"), view.reasoningBody);
  view.root.append(view.head, view.reasoning, view.tools, view.content, el("div", "msg-foot", view.stats, view.actions));
  view.head.append(el("span", "role", msg.role === "user" ? "You" : msg.model || "Assistant"));
  fill(view, msg);
  actions(view, msg, index);
  return view.root;
}

function fill(view, msg) {
  view.root.dataset.state = msg.error ? "error" : msg.stopped ? "stopped" : msg.pending ? "streaming" : "done";
  const { reasoning, content } = parts(msg);
  view.reasoning.hidden = !reasoning;
  if (reasoning) view.reasoningBody.replaceChildren(render(reasoning));
  view.tools.hidden = !(msg.toolCalls && msg.toolCalls.length);
  if (msg.toolCalls) view.tools.replaceChildren(...msg.toolCalls.map(toolCallView));
  if (msg.role === "user") view.content.replaceChildren(el("p", "plain", msg.content));
  else view.content.replaceChildren(render(content));
  if (msg.error) view.content.append(el("p", "error", msg.error));
  if (msg.stopped) view.content.append(el("p", "stopped-note", "Stopped."));
  view.stats.textContent = statsText(msg);
}

function toolCallView(t) {
  let args = t.arguments;
  try {
    args = JSON.stringify(JSON.parse(t.arguments), null, 2);
  } catch {
    // still streaming, or not JSON: shown as it is
  }
  return el("div", "tool-call", el("div", "tool-name", "Tool call: " + (t.name || "?")), el("pre", null, el("code", null, args)));
}

function statsText(msg) {
  const s = msg.stats;
  if (!s || !s.tokens) return "";
  let t = s.tokens + (s.tokens === 1 ? " token" : " tokens");
  if (s.tps) t += " \u00b7 " + s.tps.toFixed(1) + " tok/s";
  return t;
}

function actions(view, msg, index) {
  const last = current && index === current.messages.length - 1;
  const items = [button("Copy", "link-button", () => copy(parts(msg).content), "Copy the message")];
  if (msg.role === "user") items.push(button("Edit", "link-button", () => edit(view, msg, index), "Edit and send again"));
  if (msg.role === "assistant" && last) items.push(button("Regenerate", "link-button", regenerate, "Answer again"));
  view.actions.replaceChildren(...items);
}

function edit(view, msg, index) {
  if (streaming) return;
  const box = el("textarea", "edit-box");
  box.value = msg.content;
  box.rows = Math.min(12, msg.content.split("\n").length + 1);
  const save = button("Send", "button primary", () => {
    const text = box.value.trim();
    if (!text) return;
    current.messages = current.messages.slice(0, index);
    current.messages.push({ role: "user", content: text });
    send();
  });
  const cancel = button("Cancel", "button", () => renderMessages());
  view.content.replaceChildren(box, el("div", "edit-actions", cancel, save));
  box.focus();
}

function regenerate() {
  if (streaming || !current) return;
  const msgs = current.messages;
  while (msgs.length && msgs[msgs.length - 1].role === "assistant") msgs.pop();
  if (msgs.length) send();
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const t = el("textarea");
    t.value = text;
    document.body.append(t);
    t.select();
    document.execCommand("copy");
    t.remove();
  }
}

function scrollDown(force) {
  const m = ui.messages;
  if (force || m.scrollHeight - m.scrollTop - m.clientHeight < 80) m.scrollTop = m.scrollHeight;
}

function renderContext() {
  const last = current?.messages.findLast((m) => m.role === "assistant" && m.stats?.used);
  const ctx = models.find((m) => m.id === ui.model.value)?.context || 0;
  if (!last) {
    ui.context.textContent = ctx ? "context " + ctx : "";
    return;
  }
  const used = last.stats.used;
  ui.context.textContent = ctx ? "context " + used + " / " + ctx + " (" + Math.round((100 * used) / ctx) + "%)" : "context " + used;
}

// --- sending -----------------------------------------------------------------------------------------------

function request(conv) {
  const messages = [];
  if (settings.system.trim()) messages.push({ role: "system", content: settings.system });
  for (const m of conv.messages) {
    if (m.role === "assistant" && (m.error || !m.content)) continue;
    messages.push({ role: m.role, content: m.role === "assistant" ? parts(m).content : m.content });
  }
  const req = { model: ui.model.value, messages };
  for (const k of ["temperature", "top_p", "top_k", "max_tokens", "seed"]) {
    if (String(settings[k]).trim() !== "" && Number.isFinite(Number(settings[k]))) req[k] = Number(settings[k]);
  }
  return req;
}

function submit() {
  const text = ui.input.value.trim();
  if (!text || streaming) return;
  if (!ui.model.value) {
    notify("No model to answer: start forma with a model (forma app -m MODEL).");
    return;
  }
  if (!current) {
    current = { id: newId(), title: text.slice(0, 60), created: Date.now(), messages: [] };
    conversations.unshift(current);
  }
  current.messages.push({ role: "user", content: text });
  ui.input.value = "";
  autosize();
  send();
}

async function send() {
  const conv = current;
  const req = request(conv);
  const msg = { role: "assistant", content: "", model: req.model, pending: true, stats: { tokens: 0 } };
  conv.messages.push(msg);
  conv.updated = Date.now();
  conversations = [conv, ...conversations.filter((c) => c !== conv)];
  persist();
  renderList();
  renderMessages();
  const views = ui.messages.querySelectorAll("article.msg");
  const root = views[views.length - 1];
  const view = {
    root, reasoning: root.querySelector(".reasoning"), reasoningBody: root.querySelector(".reasoning-body"),
    tools: root.querySelector(".tool-calls"), content: root.querySelector(".content"), stats: root.querySelector(".stats"),
  };
  streaming = { controller: new AbortController(), conv, msg, view };
  setStreaming(true);
  let first = 0;
  let lastSave = Date.now();
  try {
    for await (const d of streamChat(req, streaming.controller.signal)) {
      if (d.content || d.reasoning || d.toolCalls.length) {
        const now = performance.now();
        if (!first) first = now;
        msg.content += d.content;
        msg.reasoning = (msg.reasoning || "") + d.reasoning;
        for (const t of d.toolCalls) addToolCall(msg, t);
        msg.stats.tokens++;
        if (msg.stats.tokens > 1) msg.stats.tps = (msg.stats.tokens - 1) / ((now - first) / 1000);
      }
      if (d.usage) {
        msg.stats.tokens = d.usage.completion_tokens ?? msg.stats.tokens;
        msg.stats.used = d.usage.total_tokens ?? (d.usage.prompt_tokens || 0) + (d.usage.completion_tokens || 0);
      }
      if (d.finish === "length") msg.truncated = true;
      fill(view, msg);
      scrollDown(false);
      if (Date.now() - lastSave > 1000) {
        persist();
        lastSave = Date.now();
      }
    }
  } catch (e) {
    if (e.name === "AbortError") msg.stopped = true;
    else msg.error = "Error: " + (e.message || e);
  } finally {
    delete msg.pending;
    streaming = null;
    setStreaming(false);
    conv.updated = Date.now();
    persist();
    if (current === conv) renderMessages();
    renderList();
  }
}

// parts returns what a message shows: its reasoning and its answer. Servers that do not separate reasoning send
// it in the content between <think> and </think>; it is shown folded all the same.
function parts(msg) {
  const m = /^\s*<think>([\s\S]*?)(?:<\/think>\s*|$)/.exec(msg.content);
  if (!m) return { reasoning: msg.reasoning || "", content: msg.content };
  return { reasoning: (msg.reasoning || "") + m[1], content: msg.content.slice(m[0].length) };
}

function addToolCall(msg, t) {
  msg.toolCalls = msg.toolCalls || [];
  let c = msg.toolCalls.find((x) => x.index === t.index);
  if (!c) {
    c = { index: t.index, id: t.id, name: "", arguments: "" };
    msg.toolCalls.push(c);
  }
  c.name += t.name;
  c.arguments += t.arguments;
}

function setStreaming(on) {
  ui.send.textContent = on ? "Stop" : "Send";
  ui.send.classList.toggle("stop", on);
  ui.send.type = on ? "button" : "submit";
  ui.app.classList.toggle("streaming", on);
}

// --- models and settings -----------------------------------------------------------------------------------

async function loadModels() {
  try {
    models = await listModels();
  } catch (e) {
    notify("Could not list the models: " + e.message);
    models = [];
  }
  if (models.length === 0) {
    const none = el("option", null, "no models");
    none.value = "";
    ui.model.replaceChildren(none);
    ui.model.disabled = true;
    return;
  }
  ui.model.replaceChildren(...models.map((m) => el("option", null, m.id)));
  ui.model.disabled = false;
  ui.model.value = models.some((m) => m.id === settings.model) ? settings.model : models[0].id;
  renderContext();
}

function bindSettings() {
  for (const k of SETTING_FIELDS) {
    const input = $(k);
    input.value = settings[k] ?? "";
    input.addEventListener("change", () => {
      settings[k] = input.value;
      notify(saveSettings(settings));
    });
  }
  ui.model.addEventListener("change", () => {
    settings.model = ui.model.value;
    notify(saveSettings(settings));
    renderContext();
  });
}

// --- layout ------------------------------------------------------------------------------------------------

function closeSidebar() {
  ui.app.classList.remove("sidebar-open");
  ui.scrim.hidden = true;
  ui.toggleSidebar.setAttribute("aria-expanded", "false");
}

function autosize() {
  ui.input.style.height = "auto";
  ui.input.style.height = Math.min(ui.input.scrollHeight, window.innerHeight * 0.4) + "px";
}

function bind() {
  ui.composer.addEventListener("submit", (e) => {
    e.preventDefault();
    submit();
  });
  ui.send.addEventListener("click", (e) => {
    if (streaming) {
      e.preventDefault();
      streaming.controller.abort();
    }
  });
  ui.input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      submit();
    }
  });
  ui.input.addEventListener("input", autosize);
  ui.newChat.addEventListener("click", newChat);
  ui.toggleSidebar.addEventListener("click", () => {
    const open = ui.app.classList.toggle("sidebar-open");
    ui.scrim.hidden = !open;
    ui.toggleSidebar.setAttribute("aria-expanded", String(open));
  });
  ui.scrim.addEventListener("click", closeSidebar);
  ui.toggleSettings.addEventListener("click", () => {
    ui.settings.hidden = !ui.settings.hidden;
    ui.toggleSettings.setAttribute("aria-expanded", String(!ui.settings.hidden));
  });
  ui.messages.addEventListener("click", (e) => {
    const b = e.target.closest(".copy-code");
    if (b) copy(b.closest(".code-block").querySelector("code").textContent);
  });
  window.addEventListener("storage", (e) => {
    if (e.key && e.key.startsWith("forma.conversations") && !streaming) {
      conversations = loadConversations();
      current = current && conversations.find((c) => c.id === current.id);
      renderList();
      renderMessages();
    }
  });
}

// Messages left "pending" by a page closed mid-answer are shown as stopped.
for (const c of conversations) {
  for (const m of c.messages) {
    if (m.pending) {
      delete m.pending;
      m.stopped = true;
    }
  }
}
bind();
bindSettings();
current = conversations[0] || null;
renderList();
renderMessages();
loadModels();
startHeartbeat();
ui.input.focus();
