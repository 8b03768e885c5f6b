// Conversations and settings, kept in this browser's localStorage.

const CONVERSATIONS = "forma.conversations.v1";
const SETTINGS = "forma.settings.v1";

function read(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v ?? fallback;
  } catch {
    return fallback;
  }
}

// write stores value under key; it returns an error message when the browser refuses (storage full or off).
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return "";
  } catch (e) {
    return "Could not save in this browser's storage (" + e.name + "): delete some conversations.";
  }
}

// loadConversations returns the conversations, most recently used first.
export function loadConversations() {
  const list = read(CONVERSATIONS, []);
  if (!Array.isArray(list)) return [];
  return list.filter((c) => c && typeof c.id === "string" && Array.isArray(c.messages))
    .sort((a, b) => (b.updated || 0) - (a.updated || 0));
}

export function saveConversations(list) {
  return write(CONVERSATIONS, list);
}

export const defaultSettings = { model: "", system: "", temperature: "", top_p: "", top_k: "", max_tokens: "", seed: "" };

export function loadSettings() {
  return { ...defaultSettings, ...read(SETTINGS, {}) };
}

export function saveSettings(s) {
  return write(SETTINGS, s);
}

export function newId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}
