// The page's heartbeat: a desktop launch (forma app) exits when no page has been open for a while, and learns of
// pages from these calls. A server that does not track pages says so (X-Forma-Presence: off, or 404), and the
// page stops calling.

const PATH = "/app/presence";
const EVERY = 15000; // ms; browsers may slow a hidden tab's timers to once a minute, which the server allows for

export function startHeartbeat() {
  const page = globalThis.crypto?.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
  const url = PATH + "?page=" + encodeURIComponent(page);
  let on = true;
  const beat = async () => {
    if (!on) return;
    try {
      const r = await fetch(url, { method: "POST", keepalive: true });
      if (r.headers.get("X-Forma-Presence") === "off" || r.status === 404 || r.status === 405) on = false;
    } catch {
      // the server is gone or restarting: try again at the next beat
    }
  };
  beat();
  setInterval(beat, EVERY);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && beat());
  addEventListener("pageshow", (e) => e.persisted && beat());
  addEventListener("pagehide", () => on && navigator.sendBeacon(url + "&gone=1"));
}
