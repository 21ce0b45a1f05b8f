// A small Markdown renderer for pi's web client: builds DOM nodes, never HTML strings, so text
// from the model, tools or files cannot inject markup (every text goes through createTextNode).
// Blocks: fenced code (``` or ~~~, a "diff" fence coloured), headings, lists, quotes, rules,
// paragraphs. Inline: code spans, **bold**, *italic*, [links](https://...) (http, https and
// mailto only), line breaks.
"use strict";

(function () {
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.appendChild(document.createTextNode(text));
    return node;
  }

  function diffBlock(text) {
    const pre = el("pre", "diff");
    const code = el("code");
    for (const line of text.split("\n")) {
      let cls = "";
      if (line.startsWith("+") && !line.startsWith("+++")) cls = "add";
      else if (line.startsWith("-") && !line.startsWith("---")) cls = "del";
      else if (line.startsWith("@@")) cls = "hunk";
      const span = el("span", cls, line + "\n");
      code.appendChild(span);
    }
    pre.appendChild(code);
    return pre;
  }

  const SAFE_URL = /^(https?:|mailto:)/i;

  function inline(parent, text) {
    // Tokens in order of precedence: code spans, links, bold, italic.
    const pattern = /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\n]+)\*|_([^_\n]+)_/g;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      if (match.index > last) lines(parent, text.slice(last, match.index));
      if (match[1]) parent.appendChild(el("code", "", match[2]));
      else if (match[3] !== undefined) {
        if (SAFE_URL.test(match[4])) {
          const a = el("a", "", match[3]);
          a.href = match[4];
          a.rel = "noopener noreferrer";
          a.target = "_blank";
          parent.appendChild(a);
        } else {
          lines(parent, match[0]);
        }
      } else if (match[5] !== undefined || match[6] !== undefined) {
        const b = el("strong");
        inline(b, match[5] !== undefined ? match[5] : match[6]);
        parent.appendChild(b);
      } else {
        const i = el("em");
        inline(i, match[7] !== undefined ? match[7] : match[8]);
        parent.appendChild(i);
      }
      last = pattern.lastIndex;
    }
    if (last < text.length) lines(parent, text.slice(last));
  }

  function lines(parent, text) {
    const parts = text.split("\n");
    parts.forEach((part, index) => {
      if (index) parent.appendChild(document.createElement("br"));
      if (part) parent.appendChild(document.createTextNode(part));
    });
  }

  function render(text) {
    const root = document.createDocumentFragment();
    const rows = String(text).replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    while (i < rows.length) {
      const row = rows[i];
      const fence = row.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
      if (fence) {
        const close = fence[1];
        const body = [];
        i += 1;
        while (i < rows.length && !rows[i].trim().startsWith(close)) body.push(rows[i++]);
        i += 1;
        if (fence[2] === "diff") root.appendChild(diffBlock(body.join("\n")));
        else {
          const pre = el("pre");
          pre.appendChild(el("code", fence[2] ? "lang-" + fence[2] : "", body.join("\n")));
          root.appendChild(pre);
        }
        continue;
      }
      const heading = row.match(/^(#{1,6})\s+(.*)$/);
      if (heading) {
        const h = el("h" + Math.min(heading[1].length + 2, 6));
        inline(h, heading[2]);
        root.appendChild(h);
        i += 1;
        continue;
      }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(row)) {
        root.appendChild(el("hr"));
        i += 1;
        continue;
      }
      const item = row.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
      if (item) {
        const ordered = /\d/.test(item[1]);
        const list = el(ordered ? "ol" : "ul");
        while (i < rows.length) {
          const m = rows[i].match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
          if (!m) break;
          const li = el("li");
          inline(li, m[2]);
          list.appendChild(li);
          i += 1;
        }
        root.appendChild(list);
        continue;
      }
      if (/^\s*>/.test(row)) {
        const quote = [];
        while (i < rows.length && /^\s*>/.test(rows[i])) quote.push(rows[i++].replace(/^\s*>\s?/, ""));
        const block = el("blockquote");
        block.appendChild(render(quote.join("\n")));
        root.appendChild(block);
        continue;
      }
      if (!row.trim()) {
        i += 1;
        continue;
      }
      const para = [];
      while (i < rows.length && rows[i].trim() && !/^\s*(```|~~~|#{1,6}\s|[-*+]\s|\d+[.)]\s|>)/.test(rows[i])) {
        para.push(rows[i++]);
      }
      if (!para.length) para.push(rows[i++]);
      const p = el("p");
      inline(p, para.join("\n"));
      root.appendChild(p);
    }
    return root;
  }

  window.piMarkdown = { render: render, diff: diffBlock };
})();
