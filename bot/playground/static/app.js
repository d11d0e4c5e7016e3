// The Fray playground page: a Discord text channel in miniature. State lives in the server (the loopback
// Discord and the bot); this page only shows it and sends what a member's Discord client would send.
"use strict";

const OPTION = { SUB: 1, GROUP: 2, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11 };
const TYPE_HINT = { 3: "text", 4: "whole number", 5: "True or False", 6: "member", 7: "channel", 8: "role", 9: "member or role", 10: "number", 11: "file" };
const COLORS = ["#5865f2", "#3ba55c", "#eb459e", "#faa61a", "#ed4245", "#1abc9c", "#9b59b6"];

const state = {
  snapshot: null,
  me: localStorage.getItem("fray.member") || null,
  channel: localStorage.getItem("fray.channel") || null,
  messages: new Map(),
  unread: new Set(),
  picked: {},        // option name → {name, value} chosen from suggestions (sent as value while the text matches)
  files: {},         // option name → {filename, data, content_type}
  suggestions: [],
  active: -1,
  socket: null,
  retry: 0,
  autocompleteSeq: 0,
};

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c.nodeType ? c : String(c));
  return node;
};

// --- live connection -------------------------------------------------------------------------------

function connect() {
  const ws = new WebSocket(`ws://${location.host}/ws`);
  state.socket = ws;
  ws.onopen = () => { state.retry = 0; setConnection(""); hello(); };
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onclose = () => {
    if (state.socket !== ws) return;
    setConnection("reconnecting…", true);
    const wait = Math.min(5000, 500 * 2 ** state.retry++);
    setTimeout(connect, wait);
  };
}

function hello() {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify({ member: state.me || "" }));
}

function setConnection(text, down = false) {
  const c = $("connection");
  c.textContent = text;
  c.classList.toggle("down", down);
}

function receive(event) {
  if (event.type === "snapshot") {
    state.snapshot = event;
    state.me = event.me;
    localStorage.setItem("fray.member", state.me);
    state.messages = new Map(event.messages.map((m) => [m.id, m]));
    if (!event.channels.some((c) => c.id === state.channel)) state.channel = event.channels[0]?.id || null;
    renderAll();
  } else if (event.type === "message") {
    const m = event.message;
    const known = state.messages.has(m.id);
    state.messages.set(m.id, m);
    if (m.channel_id === state.channel) known ? replaceMessage(m) : appendMessage(m);
    else { state.unread.add(m.channel_id); renderChannels(); }
  } else if (event.type === "delete") {
    state.messages.delete(event.id);
    document.querySelector(`[data-message="${event.id}"]`)?.remove();
  }
}

// if the first hello named nobody, the server answers with the GM; hello again once we know our member
async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) return { error: await r.text() };
  return r.json();
}

// --- rendering: server, channels, members ----------------------------------------------------------

function renderAll() {
  $("server-name").textContent = state.snapshot.server;
  if (state.snapshot.demo_seated) { $("demo-button").disabled = true; $("demo-button").textContent = "Demo table seated"; }
  renderChannels();
  renderMembers();
  renderHeader();
  renderMessages();
  updateComposer();
}

function channelInfo(id = state.channel) {
  return state.snapshot?.channels.find((c) => c.id === id);
}

function member(id = state.me) {
  return state.snapshot?.members.find((m) => m.id === id);
}

function renderChannels() {
  const nav = $("channels");
  nav.replaceChildren(...state.snapshot.channels.map((c) => el("button", {
    type: "button",
    class: `channel${c.parent_id ? " thread" : ""}${c.id === state.channel ? " current" : ""}${state.unread.has(c.id) ? " unread" : ""}`,
    "data-channel": c.name,
    onclick: () => switchChannel(c.id),
  }, el("span", { class: "hash" }, c.parent_id ? "↳" : "#"), c.name, c.parent_id ? null : el("span", { class: "system" }, systemTitle(c.system)))));
}

function systemTitle(system) {
  const c = state.snapshot?.channels.find((x) => x.system === system);
  return (c?.title || system).replace(/^the /, "");
}

function avatar(name) {
  let h = 0;
  for (const ch of name || "?") h += ch.charCodeAt(0);
  return el("span", { class: "avatar", style: `background:${COLORS[h % COLORS.length]}`, "aria-hidden": "true" }, (name || "?")[0].toUpperCase());
}

function renderMembers() {
  $("members").replaceChildren(...state.snapshot.members.map((m) => el("button", {
    type: "button", role: "radio", "aria-checked": String(m.id === state.me),
    class: `member${m.id === state.me ? " me" : ""}`, "data-member": m.name,
    onclick: () => switchMember(m.id),
  }, avatar(m.name), m.name, m.gm ? el("span", { class: "badge" }, "GM") : null, m.id === state.me ? el("span", { class: "you" }, "you") : null)));
}

function renderHeader() {
  const c = channelInfo();
  $("channel-name").textContent = c ? c.name : "";
  $("channel-topic").textContent = c ? (c.parent_id ? `thread · ${systemTitle(c.system)}` : c.topic || "") : "";
  const me = member();
  $("you-are").replaceChildren("You are ", el("b", {}, me ? me.name : "?"), me && me.gm ? " (GM)" : "");
  $("command").placeholder = c ? `Type / for commands in #${c.name}` : "Type / for commands";
}

function switchChannel(id) {
  state.channel = id;
  state.unread.delete(id);
  localStorage.setItem("fray.channel", id);
  closeDrawer();
  renderChannels();
  renderHeader();
  renderMessages();
}

function switchMember(id) {
  state.me = id;
  localStorage.setItem("fray.member", id);
  state.picked = {};
  closeDrawer();
  hello();  // the server answers with what this member can see
}

// --- rendering: messages ---------------------------------------------------------------------------

function renderMessages() {
  const box = $("messages");
  const list = [...state.messages.values()].filter((m) => m.channel_id === state.channel).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  box.replaceChildren(tipCard(), ...list.map((m, i) => messageNode(m, list[i - 1])));
  box.scrollTop = box.scrollHeight;
}

function appendMessage(m) {
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  const previous = [...state.messages.values()].filter((x) => x.channel_id === m.channel_id && x.id !== m.id && BigInt(x.id) < BigInt(m.id)).pop();
  box.append(messageNode(m, previous));
  if (atBottom || m.ephemeral) box.scrollTop = box.scrollHeight;
}

function replaceMessage(m) {
  const old = document.querySelector(`[data-message="${m.id}"]`);
  if (old) old.replaceWith(messageNode(m, null, old.classList.contains("grouped"))); else appendMessage(m);
}

function tipCard() {
  const me = member();
  const c = channelInfo();
  const chip = (text) => el("button", { type: "button", class: "chip", onclick: () => fill(text) }, text);
  const locks = !!(c && c.declares_then_locks);
  return el("div", { class: "tip" },
    el("h3", {}, `A first fight in ${c ? c.title : "this channel"}`),
    el("ol", {},
      el("li", {}, "Each player: ", chip("/character create name:"), " or ", chip("/character import"), " — or press ", el("b", {}, "Seat the demo table"), "."),
      el("li", {}, el("span", { class: "who" }, "GM: "), chip("/encounter start"), " then ", chip("/encounter add name:"), " (pick a template)."),
      el("li", {}, el("span", { class: "who" }, "Players: "), chip("/encounter join"), "; ", el("span", { class: "who" }, "GM: "), chip("/encounter begin"), "."),
      el("li", {}, "On your turn: ", chip("/attack target:"), locks ? [" then ", chip("/lockin")] : null, ", and ", el("b", {}, "End turn"), "."),
    ),
    el("div", { class: "who" }, `Switch who you are on the left. You are ${me ? me.name : "?"}.`));
}

function fill(text) {
  const input = $("command");
  input.value = text.endsWith(":") ? text : text + " ";
  state.picked = {};
  input.focus();
  updateComposer();
}

// Like Discord, a message right after one by the same author (and not a reply to a command) drops the
// repeated avatar and name.
function grouped(m, previous) {
  return !!previous && !m.used && !m.ephemeral && !previous.ephemeral && previous.author.id === m.author.id &&
    Math.abs(new Date(m.timestamp) - new Date(previous.timestamp)) < 5 * 60 * 1000;
}

function messageNode(m, previous, keepGrouped = false) {
  const compact = keepGrouped || grouped(m, previous);
  const wrap = el("div", { class: `entry${compact ? " grouped" : ""}`, "data-message": m.id });
  if (m.used) wrap.append(el("div", { class: "used" }, "↳ ", el("b", {}, m.used.member), ` ${m.used.verb} `, el("span", { class: "cmd" }, m.used.command)));
  const time = new Date(m.timestamp);
  const head = el("div", { class: "head" }, el("span", { class: "name" }, m.author.name || "?"),
    m.author.bot ? el("span", { class: "badge bot" }, "APP") : null,
    el("time", { datetime: m.timestamp }, isNaN(time) ? "" : time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })));
  const body = el("div", { class: "body" }, compact ? null : head);
  if (m.loading) body.append(el("div", { class: "thinking" }, `${m.author.name || "The app"} is thinking`));
  if (m.content) {
    const content = el("div", { class: "content" });
    content.innerHTML = markdown(m.content);
    if (m.edited) content.append(el("span", { class: "edited", title: "This message was edited" }, "(edited)"));
    body.append(content);
  }
  for (const e of m.embeds || []) body.append(embedNode(e));
  for (const a of m.attachments || []) body.append(el("a", { class: "file", href: a.url, download: a.filename }, "📄 ", a.filename, el("span", { class: "size" }, `${Math.max(1, Math.round(a.size / 1024))} KB`)));
  // with no text to follow, the mark goes under what was edited (alone above it, it reads as the line before's)
  if (m.edited && !m.content && !m.loading) body.append(el("div", { class: "edited below" }, "(edited)"));
  for (const row of m.components || []) body.append(rowNode(m, row));
  if (m.ephemeral) body.append(el("div", { class: "only-you" }, "👁 Only you can see this · ", el("button", { type: "button", onclick: () => wrap.remove() }, "Dismiss message")));
  wrap.append(el("div", { class: `message${m.ephemeral ? " ephemeral" : ""}` }, compact ? el("span", { class: "avatar-space" }) : avatar(m.author.name), body));
  return wrap;
}

function embedNode(e) {
  const color = typeof e.color === "number" ? `#${e.color.toString(16).padStart(6, "0")}` : "#1e1f22";
  const node = el("div", { class: "embed", style: `border-left-color:${color}` });
  if (e.author?.name) node.append(el("div", { class: "e-author" }, e.author.name));
  if (e.title) { const t = el("div", { class: "e-title" }); t.innerHTML = markdown(e.title); node.append(t); }
  if (e.description) { const d = el("div", { class: "e-desc" }); d.innerHTML = markdown(e.description); node.append(d); }
  if (e.fields?.length) {
    node.append(el("div", { class: "e-fields" }, e.fields.map((f) => {
      const v = el("div", { class: "e-value" }); v.innerHTML = markdown(f.value || "");
      const n = el("div", { class: "e-name" }); n.innerHTML = markdown(f.name || "");
      return el("div", { class: `e-field${f.inline ? " inline" : ""}` }, n, v);
    })));
  }
  if (e.footer?.text) node.append(el("div", { class: "e-footer" }, e.footer.text));
  return node;
}

function rowNode(m, row) {
  const items = row.type === 1 ? row.components || [] : [row];
  return el("div", { class: "row" }, items.map((c) => {
    if (c.type !== 2) return el("span", { class: "unsupported" }, "(a menu this playground cannot show)");
    const label = [c.emoji?.name ? c.emoji.name + " " : "", c.label || ""].join("");
    if (c.style === 5) return el("a", { class: "btn s5", href: c.url, target: "_blank", rel: "noopener" }, label + " ↗");
    const button = el("button", { type: "button", class: `btn s${c.style || 2}`, disabled: !!c.disabled, "data-custom-id": c.custom_id }, label);
    button.addEventListener("click", () => click(m, c, button));
    return button;
  }));
}

async function click(m, c, button) {
  button.classList.add("busy");
  button.disabled = true;
  try {
    report(await post("/api/click", { member: state.me, message: m.id, custom_id: c.custom_id }));
  } finally {
    button.classList.remove("busy");
    button.disabled = !!c.disabled;
  }
}

// Discord's markdown, the parts Fray writes: escapes first, then code, bold, italics, quotes, mentions.
function markdown(text) {
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const codes = [];
  let s = String(text).replace(/```(?:\w+\n)?([\s\S]*?)```/g, (_, c) => `\u0000${codes.push(`<pre>${esc(c)}</pre>`) - 1}\u0000`)
    .replace(/`([^`\n]+)`/g, (_, c) => `\u0000${codes.push(`<code>${esc(c)}</code>`) - 1}\u0000`);
  const users = state.snapshot?.users || {};
  const roles = state.snapshot?.roles || {};
  s = s.replace(/<@!?(\d+)>/g, (_, id) => `\u0001@${users[id] || "unknown"}\u0002`)
    .replace(/<@&(\d+)>/g, (_, id) => `\u0001@${roles[id] || "role"}\u0002`)
    .replace(/<#(\d+)>/g, (_, id) => `\u0001#${channelInfo(id)?.name || "channel"}\u0002`);
  s = esc(s)
    .replace(/\u0001(.*?)\u0002/g, '<span class="mention">$1</span>')
    .replace(/\*\*\*(.+?)\*\*\*/g, "<b><i>$1</i></b>")
    .replace(/\*\*(.+?)\*\*/g, "<b>$1</b>")
    .replace(/__(.+?)__/g, "<u>$1</u>")
    .replace(/(^|[^\w*])\*(?!\s)(.+?)\*(?!\w)/g, "$1<i>$2</i>")
    .replace(/(^|[^\w])_(?!\s)(.+?)_(?!\w)/g, "$1<i>$2</i>")
    .replace(/~~(.+?)~~/g, "<s>$1</s>")
    .replace(/\|\|(.+?)\|\|/g, '<span class="spoiler">$1</span>')
    // a roll's dice ("[3 1 2ᵂ]") stay on one line, as they read as one thing
    .replace(/\[(\d+[ᵂᴳ]*(?: \d+[ᵂᴳ]*)*)\]/g, '<span class="dice">[$1]</span>')
    .replace(/^-# (.*)$/gm, '<span class="sub">$1</span>')
    .replace(/^### (.*)$/gm, "<h3>$1</h3>").replace(/^## (.*)$/gm, "<h2>$1</h2>").replace(/^# (.*)$/gm, "<h1>$1</h1>")
    .replace(/^&gt; (.*)$/gm, "<blockquote>$1</blockquote>")
    .replace(/(<\/h[123]>|<\/blockquote>)\n/g, "$1");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
}

// --- the command box -------------------------------------------------------------------------------

function commands() {
  return state.snapshot?.commands || [];
}

// "/gm system system:d6" → {path: ["gm", "system"], decls, options: {system: "d6"}, ...}
function parseLine(text) {
  const out = { path: [], decls: null, options: {}, order: [], rest: "", partial: "", description: "" };
  if (!text.startsWith("/")) return out;
  let rest = text.slice(1);
  let level = commands();
  let node = null;
  for (;;) {
    const m = rest.match(/^(\S+)(\s+|$)/);
    if (!m || !level) break;
    const word = m[1].toLowerCase();
    const next = level.find((c) => c.name === word && (node === null || c.type === OPTION.SUB || c.type === OPTION.GROUP));
    if (!next || (!m[2] && rest.length === m[1].length && !text.endsWith(" "))) { out.partial = m[2] ? "" : m[1]; break; }
    out.path.push(next.name);
    node = next;
    rest = rest.slice(m[0].length);
    const subs = (next.options || []).filter((o) => o.type === OPTION.SUB || o.type === OPTION.GROUP);
    if (subs.length) { level = subs; continue; }
    out.decls = next.options || [];
    out.description = next.description || "";
    break;
  }
  out.level = out.decls ? null : level;
  out.rest = rest;
  if (out.decls) {
    // every "name:" starts an option, known or not: an unknown one is refused, as Discord's client would
    const marks = [];
    const re = /(^|\s)([a-z][a-z0-9_-]*):/g;
    let m;
    while ((m = re.exec(rest))) marks.push({ name: m[2], start: m.index + m[1].length, valueStart: m.index + m[0].length });
    marks.forEach((mk, i) => {
      const end = i + 1 < marks.length ? marks[i + 1].start : rest.length;
      out.options[mk.name] = rest.slice(mk.valueStart, end).replace(/\s+$/, i + 1 < marks.length ? "" : "");
      out.order.push(mk.name);
    });
    out.before = marks.length ? rest.slice(0, marks[0].start) : rest;
  }
  return out;
}

function decl(line, name) {
  return line.decls?.find((d) => d.name === name);
}

function updateComposer() {
  const input = $("command");
  const line = parseLine(input.value);
  const attachment = line.decls?.find((d) => d.type === OPTION.ATTACHMENT);
  $("attach").hidden = !attachment;
  renderFiles(line);
  suggest(line, input.value);
}

function renderFiles(line) {
  const names = Object.keys(state.files).filter((n) => decl(line, n));
  const box = $("files");
  box.hidden = !names.length;
  box.replaceChildren(...names.map((n) => el("span", { class: "picked" }, `${n}: 📄 ${state.files[n].filename}`,
    el("button", { type: "button", "aria-label": "Remove the file", onclick: () => { delete state.files[n]; updateComposer(); } }, "✕"))));
}

function showSuggestions(title, items) {
  state.suggestions = items;
  state.active = items.length ? 0 : -1;
  const box = $("suggestions");
  box.hidden = !items.length;
  box.replaceChildren(el("div", { class: "s-title" }, title), ...items.map((s, i) => el("button", {
    type: "button", role: "option", class: `suggestion${i === state.active ? " active" : ""}`,
    onmousedown: (ev) => { ev.preventDefault(); pick(i); },
  }, el("span", { class: "s-name" }, s.label), s.required ? el("span", { class: "s-req" }, "required") : null, el("span", { class: "s-desc" }, s.description || ""))));
}

function hideSuggestions() {
  state.autocompleteSeq++;  // an answer still on its way is no longer wanted
  clearTimeout(autocompleteTimer);
  state.suggestions = [];
  state.active = -1;
  $("suggestions").hidden = true;
}

function suggest(line, text) {
  state.autocompleteSeq++;  // whatever the box showed before is stale now, a pending answer too
  clearTimeout(autocompleteTimer);
  if (!text.startsWith("/")) return hideSuggestions();
  if (!line.decls) {  // still choosing the command (or subcommand)
    const prefix = (line.partial || "").toLowerCase();
    const base = line.path.length ? "/" + line.path.join(" ") + " " : "/";
    const items = (line.level || []).filter((c) => c.name.startsWith(prefix)).slice(0, 25).map((c) => {
      const subs = (c.options || []).some((o) => o.type === OPTION.SUB || o.type === OPTION.GROUP);
      return { label: base + c.name, description: c.description, insert: base + c.name + " ", keepOpen: subs };
    });
    return showSuggestions(line.path.length ? `/${line.path.join(" ")}` : "Commands", items);
  }
  const last = line.order[line.order.length - 1];
  const trailingSpace = /\s$/.test(text);
  const lastValue = last ? line.options[last] : "";
  const lastWord = trailingSpace ? "" : (line.rest.match(/(\S*)$/) || ["", ""])[1];
  // Offer option names when nothing is being typed for a value, or the last word could start a new option.
  const unused = line.decls.filter((d) => !(d.name in line.options) && !(d.type === OPTION.ATTACHMENT && state.files[d.name]));
  const namePrefix = !last || trailingSpace || (lastValue.includes(" ") || lastWord !== lastValue) ? lastWord : null;
  const optionItems = namePrefix === null ? [] : unused
    .filter((d) => d.name.startsWith(namePrefix.toLowerCase()))
    .sort((a, b) => (b.required ? 1 : 0) - (a.required ? 1 : 0))
    .map((d) => ({ label: d.name, description: `${TYPE_HINT[d.type] || ""}${d.description ? " · " + d.description : ""}`, required: d.required, option: d }));
  if (!last || trailingSpace && lastValue.trim()) {
    return showSuggestions(`/${line.path.join(" ")} — options`, optionItems);
  }
  const d = decl(line, last);
  if (!d) return showSuggestions(`/${line.path.join(" ")} has no option ${last}`, optionItems);
  const typed = lastValue;
  if (d.choices) {
    const items = d.choices.filter((c) => String(c.name).toLowerCase().includes(typed.trim().toLowerCase()))
      .map((c) => ({ label: String(c.name), description: String(c.name) === String(c.value) ? "" : String(c.value), choice: c, for: last }));
    return showSuggestions(`${last}`, [...items, ...optionItems]);
  }
  if (d.type === OPTION.BOOLEAN) {
    const items = ["True", "False"].filter((v) => v.toLowerCase().startsWith(typed.trim().toLowerCase()))
      .map((v) => ({ label: v, choice: { name: v, value: v === "True" }, for: last }));
    return showSuggestions(last, [...items, ...optionItems]);
  }
  if (d.type === OPTION.ATTACHMENT) {
    return showSuggestions(last, [{ label: "Pick a file…", description: "press the paperclip", file: last }]);
  }
  if (d.autocomplete) return autocomplete(line, last, optionItems);
  const hint = [];
  if (d.min_value !== undefined) hint.push(`at least ${d.min_value}`);
  if (d.max_value !== undefined) hint.push(`at most ${d.max_value}`);
  const info = { label: `${last}: ${TYPE_HINT[d.type] || "value"}`, description: [d.description, hint.join(", ")].filter(Boolean).join(" · "), inert: true };
  return showSuggestions(last, [info, ...optionItems]);
}

let autocompleteTimer = null;
function autocomplete(line, focused, optionItems) {
  clearTimeout(autocompleteTimer);
  const seq = ++state.autocompleteSeq;
  autocompleteTimer = setTimeout(async () => {
    const r = await post("/api/autocomplete", { member: state.me, channel: state.channel, command: line.path.join(" "), options: optionValues(line, true), focused });
    if (seq !== state.autocompleteSeq || document.activeElement !== $("command")) return;  // the box moved on
    const items = (r.choices || []).map((c) => ({ label: String(c.name), description: String(c.name) === String(c.value) ? "" : String(c.value), choice: c, for: focused }));
    if (!items.length && !optionItems.length) {
      return showSuggestions(focused, [{ label: r.refusal || r.error || "No suggestions: type a value", inert: true }]);
    }
    showSuggestions(`${focused} — suggestions from ${state.snapshot.members.length ? "Fray" : "the app"}`, [...items, ...optionItems]);
  }, 120);
}

function pick(i) {
  const s = state.suggestions[i];
  if (!s || s.inert) return;
  const input = $("command");
  if (s.insert !== undefined) {
    input.value = s.insert;
  } else if (s.option) {
    if (s.option.type === OPTION.ATTACHMENT) return pickFile(s.option.name);
    input.value = input.value.replace(/(\S*)$/, "").replace(/([^\s])$/, "$1 ") + s.option.name + ":";
  } else if (s.file) {
    return pickFile(s.file);
  } else if (s.choice) {
    const line = parseLine(input.value);
    const valueText = line.options[s.for] ?? "";
    const cut = input.value.length - valueText.length;
    input.value = input.value.slice(0, cut) + String(s.choice.name) + " ";
    state.picked[s.for] = { name: String(s.choice.name), value: s.choice.value };
  }
  input.focus();
  updateComposer();
}

function pickFile(option) {
  const chooser = $("file-input");
  chooser.dataset.option = option;
  chooser.value = "";
  chooser.click();
}

$("file-input").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  const option = ev.target.dataset.option;
  if (!file || !option) return;
  const data = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
  state.files[option] = { filename: file.name, data, content_type: file.type || "application/octet-stream" };
  const input = $("command");
  input.value = input.value.replace(new RegExp(`(^|\\s)${option}:\\S*\\s*$`), "$1").replace(/\s*$/, " ");
  input.focus();
  updateComposer();
});

$("attach").addEventListener("click", () => {
  const line = parseLine($("command").value);
  const d = line.decls?.find((x) => x.type === OPTION.ATTACHMENT);
  if (d) pickFile(d.name);
});

// The values to send: the picked choice's value while its name is still what the box shows.
function optionValues(line, partial = false) {
  const out = {};
  for (const [name, raw] of Object.entries(line.options)) {
    const text = raw.trim();
    const p = state.picked[name];
    out[name] = p && p.name === text ? p.value : text;
    if (partial && p && p.name !== text) delete state.picked[name];
  }
  for (const [name, file] of Object.entries(state.files)) if (decl(line, name)) out[name] = file;
  return out;
}

function note(text, info = false) {
  const n = $("client-note");
  n.hidden = !text;
  n.textContent = text || "";
  n.classList.toggle("info", info);
}

function report(r) {
  if (r.refusal) note(r.refusal);
  else if (r.error) note(r.error);
  else note("");
  return !r.refusal && !r.error;
}

async function send() {
  const input = $("command");
  const text = input.value.trim();
  if (!text) return;
  if (!text.startsWith("/")) return note("Fray answers slash commands only: start with / and pick one.", true);
  const line = parseLine(text + " ");
  if (!line.decls) {
    const words = text.slice(1).split(/\s+/);
    // let the server say what Discord's client would: an unknown command, or a missing subcommand
    return report(await post("/api/invoke", { member: state.me, channel: state.channel, command: words.join(" "), options: {} }));
  }
  const extra = line.before && line.before.trim();
  if (extra) return note(`/${line.path.join(" ")} has no option "${extra.split(/\s+/)[0]}". Pick options from the list (name:value).`);
  $("send").disabled = true;
  note(`Sending /${line.path.join(" ")}…`, true);
  hideSuggestions();
  try {
    const ok = report(await post("/api/invoke", { member: state.me, channel: state.channel, command: line.path.join(" "), options: optionValues(line) }));
    if (ok) { input.value = ""; state.picked = {}; state.files = {}; updateComposer(); }
  } catch (err) {
    note(`The playground did not answer (${err}). It keeps running; try again.`);
  } finally {
    $("send").disabled = false;
  }
}

$("command-form").addEventListener("submit", (ev) => { ev.preventDefault(); send(); });
$("command").addEventListener("input", () => { note(""); updateComposer(); });
$("command").addEventListener("focus", updateComposer);
$("command").addEventListener("blur", () => setTimeout(hideSuggestions, 150));
$("command").addEventListener("keydown", (ev) => {
  const n = state.suggestions.length;
  if (!n) return;
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    state.active = (state.active + (ev.key === "ArrowDown" ? 1 : n - 1)) % n;
    [...$("suggestions").querySelectorAll(".suggestion")].forEach((b, i) => b.classList.toggle("active", i === state.active));
  } else if (ev.key === "Tab" || (ev.key === "Enter" && state.active >= 0 && !state.suggestions[state.active].inert && !sendable())) {
    ev.preventDefault();
    pick(state.active);
  } else if (ev.key === "Escape") {
    hideSuggestions();
  }
});

// Enter sends once every required option has a value; before that it picks the highlighted suggestion.
function sendable() {
  const text = $("command").value;
  const line = parseLine(/\s$/.test(text) ? text : text + " ");
  if (!line.decls) return false;
  const last = line.order[line.order.length - 1];
  if (last && !line.options[last].trim()) return false;
  return line.decls.every((d) => !d.required || (line.options[d.name] || "").trim() || state.files[d.name]);
}

// --- the rest of the page --------------------------------------------------------------------------

$("demo-button").addEventListener("click", async () => {
  const b = $("demo-button");
  b.disabled = true;
  b.textContent = "Seating the demo table…";
  const r = await post("/api/demo", {});
  b.textContent = r.ok ? "Demo table seated" : "Seat the demo table";
  b.disabled = !!r.ok;
  if (r.ok) note("Every player has a character in every channel now (/character list). GM: /encounter start.", true);
  else report(r);
});

function closeDrawer() {
  $("sidebar").classList.remove("open");
  $("scrim").hidden = true;
}
$("menu-toggle").addEventListener("click", () => { $("sidebar").classList.add("open"); $("scrim").hidden = false; });
$("scrim").addEventListener("click", closeDrawer);

connect();
