// pi's web client: the sessions of `pi serve`, and one session's live transcript over its
// WebSocket (pi's RPC protocol: commands in, responses and events out). No framework, no build
// step, nothing from another origin: the page's CSP allows this origin only. Text from the
// model, tools and files is only ever put into the page as text nodes (see markdown.js).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const md = () => window.piMarkdown;
  const LABELS = {
    allow_once: "Allow once",
    allow_session: "Allow for this session",
    deny: "Deny",
  };
  const state = {
    id: null,
    ws: null,
    nextId: 1,
    waiting: new Map(),
    shell: "idle",
    current: null, // the assistant message element that streams
    pendingPartial: null,
    tools: new Map(),
    approvals: new Map(),
    turn: 0,
    listTimer: null,
    closedByUs: false,
  };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.appendChild(document.createTextNode(String(text)));
    return node;
  }

  function toast(text) {
    const box = $("toast");
    box.textContent = text;
    box.classList.add("show");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
  }

  async function api(method, path, body) {
    const response = await fetch(path, {
      method: method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401) throw new Error("The token is missing or was rotated: open `pi serve --url` again.");
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || "HTTP " + response.status);
    return data;
  }

  // ------------------------------------------------------------------ sessions list

  function showList() {
    closeSession();
    $("session-view").hidden = true;
    $("sessions-view").hidden = false;
    $("back").hidden = true;
    $("abort").hidden = true;
    $("title").textContent = "pi sessions";
    setBadge("");
    loadSessions();
  }

  async function loadSessions() {
    clearTimeout(state.listTimer);
    if ($("sessions-view").hidden) return;
    try {
      const data = await api("GET", "/api/sessions");
      renderSessions(data.sessions);
    } catch (error) {
      toast(error.message);
    }
    state.listTimer = setTimeout(loadSessions, 2000);
  }

  function renderSessions(sessions) {
    const box = $("sessions");
    box.replaceChildren();
    if (!sessions.length) box.appendChild(el("p", "msg notice", "No sessions yet: open one below."));
    for (const s of sessions) {
      const item = el("button", "session");
      item.dataset.id = s.id;
      const top = el("div", "meta");
      const label = s.waitingForApproval ? "waiting" : s.state;
      top.appendChild(el("span", "badge " + label, label));
      top.appendChild(el("span", "", s.id.slice(0, 8)));
      top.appendChild(el("span", "", s.model || ""));
      top.appendChild(el("span", "", "$" + Number(s.cost || 0).toFixed(4)));
      if (s.clients && s.clients.length) top.appendChild(el("span", "", s.clients.length + " attached"));
      item.appendChild(top);
      item.appendChild(el("div", "what", s.name || s.title || "(no prompt yet)"));
      item.appendChild(el("div", "meta", s.cwd));
      if (s.approval) item.appendChild(el("div", "meta", "approve: " + s.approval.tool + " " + s.approval.title));
      item.addEventListener("click", () => openSession(s.id));
      box.appendChild(item);
    }
  }

  async function newSession(event) {
    event.preventDefault();
    const body = { cwd: $("new-cwd").value.trim() };
    const model = $("new-model").value.trim();
    if (model) body.model = model;
    try {
      const session = await api("POST", "/api/sessions", body);
      const prompt = $("new-prompt").value.trim();
      if (prompt) await api("POST", "/api/sessions/" + session.id + "/rpc", { type: "prompt", message: prompt });
      $("new-prompt").value = "";
      openSession(session.id);
    } catch (error) {
      toast(error.message);
    }
  }

  // ------------------------------------------------------------------ one session

  function openSession(id) {
    if (location.hash !== "#/s/" + id) history.pushState(null, "", "#/s/" + id);
    closeSession();
    clearTimeout(state.listTimer);
    state.id = id;
    $("sessions-view").hidden = true;
    $("session-view").hidden = false;
    $("back").hidden = false;
    $("title").textContent = id.slice(0, 8);
    $("transcript").replaceChildren(el("p", "msg notice", "Attaching…"));
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/api/sessions/" + encodeURIComponent(id) + "/ws?client=web");
    state.ws = ws;
    state.closedByUs = false;
    ws.addEventListener("message", (event) => {
      let line;
      try {
        line = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      handle(line);
    });
    ws.addEventListener("close", (event) => {
      if (state.ws !== ws || state.closedByUs) return;
      notice("Detached from the session (" + (event.reason || "connection closed") + ").", "error");
      setBadge("detached");
    });
  }

  function closeSession() {
    if (state.ws) {
      state.closedByUs = true;
      state.ws.close();
    }
    state.ws = null;
    state.id = null;
    state.waiting.clear();
    state.tools.clear();
    state.approvals.clear();
    $("approvals").replaceChildren();
    $("queue").replaceChildren();
  }

  function send(command) {
    return new Promise((resolve, reject) => {
      if (!state.ws || state.ws.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected"));
        return;
      }
      const id = "w" + state.nextId++;
      state.waiting.set(id, { resolve: resolve, reject: reject });
      state.ws.send(JSON.stringify(Object.assign({}, command, { id: id })));
    });
  }

  function setBadge(shellState) {
    const badge = $("state");
    badge.textContent = shellState;
    badge.className = "badge " + shellState;
    $("abort").hidden = !shellState || shellState === "idle" || shellState === "detached";
  }

  function scrollDown() {
    const box = $("transcript");
    if (box.scrollHeight - box.scrollTop - box.clientHeight < 200) box.scrollTop = box.scrollHeight;
  }

  function add(node) {
    $("transcript").appendChild(node);
    scrollDown();
    return node;
  }

  function notice(text, level) {
    add(el("div", "msg notice " + (level || "info"), text));
  }

  function textOf(message) {
    const content = message.content;
    if (typeof content === "string") return content;
    return (content || []).filter((b) => b.type === "text").map((b) => b.text).join("");
  }

  // ------------------------------------------------------------------ rendering

  function userMessage(message) {
    add(el("div", "msg user", message.role === "bashExecution" ? "!" + message.command : textOf(message)));
  }

  function assistantNode() {
    const node = add(el("div", "msg assistant"));
    node.dataset.streaming = "1";
    return node;
  }

  function fillAssistant(node, message) {
    node.replaceChildren();
    for (const block of message.content || []) {
      if (block.type === "text" && block.text) node.appendChild(md().render(block.text));
      else if (block.type === "thinking" && block.thinking) {
        const think = el("details", "thinking");
        think.appendChild(el("summary", "", "thinking"));
        think.appendChild(el("pre", "", block.thinking));
        node.appendChild(think);
      }
    }
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      node.appendChild(el("div", "msg notice error", message.stopReason + ": " + (message.errorMessage || "")));
    }
    scrollDown();
  }

  function streamPartial(message) {
    // At most one re-render a frame, however fast updates come.
    state.pendingPartial = message;
    if (state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      if (state.current && state.pendingPartial) fillAssistant(state.current, state.pendingPartial);
      state.pendingPartial = null;
    });
  }

  function toolTitle(name, args) {
    if (!args || typeof args !== "object") return "";
    if (name === "bash") return "$ " + String(args.command || "").split("\n")[0];
    if (args.path) return String(args.path);
    if (args.pattern) return String(args.pattern);
    if (args.url) return String(args.url);
    return JSON.stringify(args).slice(0, 120);
  }

  function toolBlock(callId, name, args, running) {
    const block = el("details", "tool" + (running ? " running" : ""));
    const summary = el("summary");
    summary.appendChild(el("span", "name", name));
    summary.appendChild(document.createTextNode(" " + toolTitle(name, args)));
    block.appendChild(summary);
    block.appendChild(el("pre", "output", ""));
    state.tools.set(callId, block);
    return add(block);
  }

  function toolOutput(block, result, isError, done) {
    if (!block) return;
    const text = (result && result.content ? result.content : [])
      .filter((b) => b.type === "text").map((b) => b.text).join("");
    const pre = block.querySelector("pre.output");
    const diff = result && result.details && typeof result.details.diff === "string" ? result.details.diff : null;
    if (done && diff) pre.replaceWith(md().diff(diff));
    else pre.textContent = text;
    if (done) block.classList.remove("running");
    if (isError) block.classList.add("error");
  }

  function showHistory(messages) {
    const box = $("transcript");
    box.replaceChildren();
    const results = new Map();
    for (const m of messages) if (m.role === "toolResult") results.set(m.toolCallId, m);
    for (const m of messages) {
      if (m.role === "user" || m.role === "bashExecution") userMessage(m);
      else if (m.role === "assistant") {
        fillAssistant(add(el("div", "msg assistant")), m);
        for (const block of m.content || []) {
          if (block.type !== "toolCall") continue;
          const result = results.get(block.id);
          const tool = toolBlock(block.id, block.name, block.arguments, false);
          toolOutput(tool, result, result && result.isError, true);
        }
      }
    }
    box.scrollTop = box.scrollHeight;
  }

  function approval(request) {
    if (state.approvals.has(request.id)) return;
    const card = el("div", "approval");
    card.dataset.id = request.id;
    card.appendChild(el("h3", "", request.question || "Allow " + request.toolName + ": " + request.title + "?"));
    if (request.reason) card.appendChild(el("div", "reason", request.reason));
    if (request.preview) {
      const looksLikeDiff = /^(---|\+\+\+|@@)/m.test(request.preview);
      card.appendChild(looksLikeDiff ? md().diff(request.preview) : el("pre", "", request.preview));
    }
    const options = el("div", "options");
    const words = request.labels || {};
    for (const choice of request.options || []) {
      const scopes = choice === "allow_always" ? ["project", "user"] : [null];
      for (const scope of scopes) {
        const label = words[choice] || (scope ? "Always (" + scope + " settings)" : LABELS[choice] || choice);
        const button = el("button", choice === "deny" ? "danger" : choice === "allow_once" ? "primary" : "", label);
        button.dataset.choice = choice;
        button.addEventListener("click", () => answer(request.id, choice, scope));
        options.appendChild(button);
      }
    }
    card.appendChild(options);
    state.approvals.set(request.id, card);
    $("approvals").appendChild(card);
    if (document.hidden && window.Notification && Notification.permission === "granted") {
      new Notification("pi: approval needed", { body: request.toolName + ": " + request.title });
    }
  }

  function answer(id, choice, scope) {
    const command = { type: "extension_ui_response", value: choice };
    if (scope) command.scope = scope;
    // A valid answer has no response line: only a refusal comes back (answered elsewhere).
    state.ws.send(JSON.stringify(Object.assign(command, { id: id })));
  }

  function resolved(event) {
    const card = state.approvals.get(event.id);
    if (card) card.remove();
    state.approvals.delete(event.id);
    const verdict = event.allowed ? "allowed" : "denied";
    notice(event.toolName + " " + event.title + ": " + verdict + (event.by !== "user" ? " (" + event.by + ")" : ""), event.allowed ? "info" : "warning");
  }

  function renderQueue(items) {
    const box = $("queue");
    box.replaceChildren();
    for (const item of items) {
      const row = el("div", "queued");
      row.appendChild(el("span", "kind", item.kind.replace("_", "-")));
      row.appendChild(el("span", "text", item.text));
      if (item.kind !== "steer") {
        const promote = el("button", "", "Steer now");
        promote.addEventListener("click", () => send({ type: "promote_queued", itemId: item.id }).catch((e) => toast(e.message)));
        row.appendChild(promote);
      }
      const remove = el("button", "", "✕");
      remove.title = "Remove";
      remove.addEventListener("click", () => send({ type: "remove_queued", itemId: item.id }).catch((e) => toast(e.message)));
      row.appendChild(remove);
      box.appendChild(row);
    }
  }

  // ------------------------------------------------------------------ the stream

  const HANDLERS = {
    attached(line) {
      showHistory(line.messages || []);
      setBadge(line.frontState.state);
      $("title").textContent = (line.session.name || line.session.title || line.session.id.slice(0, 8));
      state.turn = 0;
    },
    response(line) {
      const waiter = state.waiting.get(String(line.id));
      if (waiter) {
        state.waiting.delete(String(line.id));
        if (line.success) waiter.resolve(line.data);
        else waiter.reject(new Error(line.error));
      } else if (!line.success) {
        toast(line.error);
      }
    },
    shell_state(line) { setBadge(line.state); },
    turn_start() {
      state.turn += 1;
      state.turnShown = false; // the title goes above the turn's answer, after a prompt
    },
    agent_start() { state.turn = 0; },
    message_start(line) {
      const m = line.message;
      if (m.role === "user" || m.role === "bashExecution") userMessage(m);
      else if (m.role === "assistant") {
        if (!state.turnShown) add(el("div", "turn-title", "turn " + state.turn));
        state.turnShown = true;
        state.current = assistantNode();
      }
    },
    message_update(line) {
      if (!state.current) state.current = assistantNode();
      streamPartial(line.message);
    },
    message_end(line) {
      if (line.message.role !== "assistant") return;
      if (!state.current) state.current = assistantNode();
      state.pendingPartial = null;
      fillAssistant(state.current, line.message);
      delete state.current.dataset.streaming;
      state.current = null;
    },
    tool_execution_start(line) { toolBlock(line.toolCallId, line.toolName, line.args, true); },
    tool_execution_update(line) { toolOutput(state.tools.get(line.toolCallId), line.partialResult, false, false); },
    tool_execution_end(line) {
      const block = state.tools.get(line.toolCallId) || toolBlock(line.toolCallId, line.toolName, {}, false);
      toolOutput(block, line.result, line.isError, true);
    },
    permission_requested(line) { approval(line); },
    permission_resolved(line) { resolved(line); },
    queue_changed(line) { renderQueue(line.items || []); },
    queue_returned(line) {
      const texts = (line.items || []).map((i) => i.text);
      if (texts.length) {
        const input = $("input");
        input.value = texts.concat(input.value ? [input.value] : []).join("\n");
      }
    },
    notice(line) { notice(line.text, line.level); },
    compaction_end(line) {
      if (line.errorMessage) notice("Compaction failed: " + line.errorMessage, "error");
      else notice("Compacted: " + line.tokensBefore + " → " + line.tokensAfter + " tokens", "info");
    },
    session_changed() {
      send({ type: "get_messages" }).then((data) => showHistory(data.messages)).catch((e) => toast(e.message));
    },
    model_changed(line) { notice("model: " + line.model + " (thinking " + line.thinking + ")", "info"); },
    agent_end(line) {
      let cost = 0;
      for (const m of line.messages || []) if (m.role === "assistant" && m.usage) cost += m.usage.cost.total;
      notice("· " + state.turn + " turn" + (state.turn === 1 ? "" : "s") + " · $" + cost.toFixed(4), "info");
    },
  };

  function handle(line) {
    const handler = HANDLERS[line.type];
    if (handler) handler(line);
  }

  // ------------------------------------------------------------------ input

  function submit(intent) {
    const input = $("input");
    const text = input.value;
    if (!text.trim()) return;
    input.value = "";
    send({ type: "submit", message: text, intent: intent })
      .then((data) => {
        const result = data && data.result;
        if (result && result.output) notice(result.output, result.error ? "error" : "info");
      })
      .catch((error) => {
        toast(error.message);
        if (!input.value) input.value = text;
      });
  }

  function abort() {
    send({ type: "abort" }).catch((e) => toast(e.message));
  }

  function keys(event) {
    if (event.key === "Escape") {
      event.preventDefault();
      abort();
    } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit(event.altKey || event.ctrlKey ? "follow_up" : "auto");
    }
  }

  function route() {
    const match = location.hash.match(/^#\/s\/([A-Za-z0-9_-]+)$/);
    if (match) openSession(match[1]);
    else showList();
  }

  function start() {
    $("back").addEventListener("click", () => {
      history.pushState(null, "", "#/");
      showList();
    });
    $("abort").addEventListener("click", abort);
    $("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      submit("auto");
    });
    $("follow-up").addEventListener("click", () => submit("follow_up"));
    $("input").addEventListener("keydown", keys);
    $("new-session").addEventListener("submit", newSession);
    window.addEventListener("popstate", route);
    if (window.Notification && Notification.permission === "default") {
      document.addEventListener("click", () => Notification.requestPermission(), { once: true });
    }
    route();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
