// Markdown to DOM nodes for model output. Every piece of the text becomes a text node or the content of an
// element built here: nothing is parsed as HTML, so a model's "<script>" is shown, never run. Links keep only
// http(s) and mailto targets. Text still streaming in renders as it stands (an unclosed code fence is a code
// block so far).

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) e.append(c);
  return e;
}

// render returns a DocumentFragment for the Markdown text src.
export function render(src) {
  const frag = document.createDocumentFragment();
  blocks(src.replace(/\r\n?/g, "\n").split("\n"), frag);
  return frag;
}

function blocks(lines, parent) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (/^\s*$/.test(line)) {
      i++;
    } else if ((m = FENCE.exec(line))) {
      const close = new RegExp("^ {0,3}" + m[1][0] + "{" + m[1].length + ",}\\s*$");
      const body = [];
      for (i++; i < lines.length && !close.test(lines[i]); i++) body.push(lines[i]);
      i++;
      parent.append(codeBlock(body.join("\n"), m[2]));
    } else if ((m = HEADING.exec(line))) {
      parent.append(el("h" + m[1].length, null, inline(m[2])));
      i++;
    } else if (RULE.test(line)) {
      parent.append(el("hr"));
      i++;
    } else if (QUOTE.test(line)) {
      const body = [];
      for (; i < lines.length && (m = QUOTE.exec(lines[i])); i++) body.push(m[1]);
      const q = el("blockquote");
      blocks(body, q);
      parent.append(q);
    } else if (ITEM.test(line)) {
      i = list(lines, i, parent);
    } else if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
      i = table(lines, i, parent);
    } else {
      const body = [];
      for (; i < lines.length && !/^\s*$/.test(lines[i]) && !startsBlock(lines, i); i++) body.push(lines[i].trim());
      if (body.length === 0) body.push(lines[i++].trim()); // a line that starts a block nothing else took
      parent.append(el("p", null, inline(body.join("\n"))));
    }
  }
}

function startsBlock(lines, i) {
  const l = lines[i];
  return FENCE.test(l) || HEADING.test(l) || RULE.test(l) || QUOTE.test(l) || ITEM.test(l) ||
    (l.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]));
}

// list reads the list starting at lines[i] (items at its indentation, their continuation and nested lists
// indented further) and returns the index after it.
function list(lines, i, parent) {
  const first = ITEM.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const l = el(ordered ? "ol" : "ul");
  if (ordered && parseInt(first[2], 10) !== 1) l.start = parseInt(first[2], 10);
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const body = [m[3]];
    for (i++; i < lines.length; i++) {
      const l2 = lines[i];
      const sub = ITEM.exec(l2);
      if (/^\s*$/.test(l2)) {
        if (i + 1 < lines.length && leading(lines[i + 1]) > indent) { body.push(""); continue; }
        break;
      }
      if (sub && sub[1].length <= indent) break;
      if (!sub && leading(l2) <= indent && startsBlock(lines, i)) break;
      body.push(l2.slice(Math.min(leading(l2), indent + 2)));
    }
    const li = el("li");
    if (body.length === 1 || !body.slice(1).some((b) => ITEM.test(b) || FENCE.test(b) || b === "")) {
      li.append(inline(body.join("\n")));
    } else {
      blocks(body, li);
    }
    l.append(li);
  }
  parent.append(l);
  return i;
}

function leading(s) {
  return s.length - s.trimStart().length;
}

function cells(row) {
  let s = row.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function table(lines, i, parent) {
  const head = cells(lines[i]);
  const aligns = cells(lines[i + 1]).map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : c.startsWith(":") ? "left" : "");
  const t = el("table");
  const tr = el("tr");
  head.forEach((c, k) => tr.append(cell("th", c, aligns[k])));
  t.append(el("thead", null, tr));
  const body = el("tbody");
  for (i += 2; i < lines.length && lines[i].includes("|") && !/^\s*$/.test(lines[i]); i++) {
    const r = el("tr");
    const cs = cells(lines[i]);
    head.forEach((_, k) => r.append(cell("td", cs[k] ?? "", aligns[k])));
    body.append(r);
  }
  t.append(body);
  parent.append(el("div", "table-wrap", t));
  return i;
}

function cell(tag, text, align) {
  const c = el(tag, null, inline(text));
  if (align) c.style.textAlign = align;
  return c;
}

function codeBlock(text, lang) {
  const code = el("code", null, document.createTextNode(text));
  if (lang) code.dataset.lang = lang;
  const copy = el("button", "copy-code", "Copy");
  copy.type = "button";
  copy.title = "Copy the code";
  const bar = el("div", "code-bar", el("span", "code-lang", lang || "text"), copy);
  return el("div", "code-block", bar, el("pre", null, code));
}

// Inline spans, tried in order at each position (sticky expressions, matched where the scan stands); the first
// that matches wins.
const INLINE = [
  [/\\([\\`*_{}[\]()#+\-.!|~<>])/y, (m) => document.createTextNode(m[1])],
  [/(`+)([\s\S]*?[^`])\1(?!`)/y, (m) => el("code", null, document.createTextNode(m[2].replace(/^ (.*) $/, "$1")))],
  [/!?\[([^\]\n]*)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))*)>?(?:\s+"[^"]*")?\s*\)/y, (m) => link(m[1], m[2])],
  [/<(https?:\/\/[^>\s]+)>/y, (m) => link(m[1], m[1])],
  [/https?:\/\/[^\s<>"')\]]*[^\s<>"')\].,:;!?*_~]/y, (m) => link(m[0], m[0])],
  [/\*\*(?=\S)([\s\S]*?\S)\*\*(?!\*)/y, (m) => el("strong", null, inline(m[1]))],
  [/__(?=\S)([\s\S]*?\S)__(?![\w_])/y, (m) => el("strong", null, inline(m[1]))],
  [/~~(?=\S)([\s\S]*?\S)~~/y, (m) => el("del", null, inline(m[1]))],
  [/\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)/y, (m) => el("em", null, inline(m[1]))],
  [/_(?=[^\s_])([\s\S]*?[^\s_])_(?![\w_])/y, (m) => el("em", null, inline(m[1]))],
  [/\n/y, () => el("br")],
];

// inline returns the nodes of one paragraph's text.
export function inline(text) {
  const frag = document.createDocumentFragment();
  let start = 0; // of the plain text not yet added
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    let m = null;
    let make;
    // Only characters that can begin a span are tried; an underscore inside a word begins nothing.
    if ("\\`![<h*_~\n".includes(c) && !(c === "_" && /\w/.test(text[i - 1] || ""))) {
      for (const [re, mk] of INLINE) {
        re.lastIndex = i;
        if ((m = re.exec(text))) {
          make = mk;
          break;
        }
      }
    }
    if (!m) {
      i++;
      continue;
    }
    if (start < i) frag.append(document.createTextNode(text.slice(start, i)));
    frag.append(make(m));
    i += m[0].length;
    start = i;
  }
  if (start < text.length) frag.append(document.createTextNode(text.slice(start)));
  return frag;
}

// link returns an anchor for safe targets (http, https, mailto), else the label as text.
function link(label, href) {
  let url;
  try {
    url = new URL(href, "http://invalid.invalid/");
  } catch {
    url = null;
  }
  const safe = url && /^(https?|mailto):$/.test(url.protocol) && /^(https?:\/\/|mailto:)/i.test(href);
  if (!safe) return document.createTextNode(label === href ? href : label);
  const a = el("a", null, label === href ? document.createTextNode(label) : inline(label));
  a.href = url.href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  return a;
}
