"use strict";
(() => {
  const byId = (id) => document.getElementById(id);
  const form = byId("options");
  const signingRequired = document.body.dataset.signingRequired === "true";
  // The server's path prefix (--path-prefix), in front of every path it serves.
  const pathPrefix = document.body.dataset.pathPrefix || "";
  // What Chromium's <img> sends, so "auto" formats are negotiated as a page's images are.
  const imageAccept = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
  const debounceMilliseconds = 250;

  let timer = null;
  let controller = null;
  let blobURL = null;

  // A source URL as a plain source: every character escaped but ':' and '/', so '?', '#',
  // '@' and '%' in the URL reach the server as they are typed.
  function plainSource(source) {
    return encodeURIComponent(source).replace(/%3A/gi, ":").replace(/%2F/gi, "/");
  }

  function number(id) {
    const value = Number(byId(id).value);
    return Number.isFinite(value) ? value : 0;
  }

  function source() {
    const custom = byId("source-custom").checked;
    return (custom ? byId("source-url").value : byId("sample").value).trim();
  }

  function optionSegments() {
    const segments = [];
    const type = byId("resize-type").value;
    const width = Math.max(0, Math.round(number("width")));
    const height = Math.max(0, Math.round(number("height")));
    if (width > 0 || height > 0 || type !== "fit") segments.push(`rs:${type}:${width}:${height}`);
    const gravity = byId("gravity").value;
    if (gravity) segments.push(`g:${gravity}`);
    if (byId("quality-auto").checked) {
      segments.push("q:auto");
    } else {
      const quality = Math.round(number("quality"));
      if (quality > 0) segments.push(`q:${quality}`);
    }
    const format = byId("format").value;
    if (format !== "auto") segments.push(`f:${format}`);
    const blur = number("blur");
    if (blur > 0) segments.push(`bl:${blur}`);
    const sharpen = number("sharpen");
    if (sharpen > 0) segments.push(`sh:${sharpen}`);
    const dpr = number("dpr");
    if (dpr > 0 && dpr !== 1) segments.push(`dpr:${dpr}`);
    return segments;
  }

  // The path after the signature: /<options>/plain/<source>.
  function processingPath() {
    const options = optionSegments().join("/");
    return (options ? "/" + options : "") + "/plain/" + plainSource(source());
  }

  function setText(id, text) { byId(id).textContent = text; }

  function clearResult() {
    const image = byId("result");
    image.removeAttribute("src");
    image.hidden = true;
    if (blobURL) { URL.revokeObjectURL(blobURL); blobURL = null; }
    for (const id of ["result-size", "result-format", "result-bytes", "result-time", "result-quality", "result-score"]) {
      setText(id, "–");
    }
  }

  function setState(state, message) {
    document.body.dataset.state = state;
    const status = byId("status");
    status.textContent = message;
    status.className = "status " + state;
  }

  async function showImage(url, signal) {
    const started = performance.now();
    const response = await fetch(url, { signal, headers: { Accept: imageAccept } });
    const blob = await response.blob();
    const elapsed = performance.now() - started;
    if (signal.aborted) return;
    if (!response.ok) {
      const text = (await blob.text()).trim();
      clearResult();
      setState("error", `${response.status} ${response.statusText}${text ? ": " + text : ""}`);
      return;
    }
    const contentType = response.headers.get("Content-Type") || "";
    const previous = blobURL;
    blobURL = URL.createObjectURL(blob);
    const image = byId("result");
    image.onload = () => {
      setText("result-size", `${image.naturalWidth} × ${image.naturalHeight} px`);
      setState("done", `${response.status} ${response.statusText || "OK"}`);
    };
    image.onerror = () => {
      setState("error", `the browser cannot show ${contentType || "this response"}`);
    };
    image.hidden = false;
    image.src = blobURL;
    if (previous) URL.revokeObjectURL(previous);
    setText("result-format", contentType.replace(/^image\//, "") || "unknown");
    setText("result-bytes", `${blob.size} bytes (${(blob.size / 1024).toFixed(1)} KiB)`);
    setText("result-time", `${elapsed.toFixed(0)} ms`);
    setText("result-quality", response.headers.get("X-Quality") || "–");
    setText("result-score", response.headers.get("X-Image-Score") || "–");
  }

  async function showInfo(url, signal) {
    const info = byId("info");
    const response = await fetch(url, { signal, headers: { Accept: "application/json" } });
    const text = await response.text();
    if (signal.aborted) return;
    if (!response.ok) {
      info.textContent = `/info answered ${response.status} ${response.statusText}` + (text.trim() ? `: ${text.trim()}` : "");
      return;
    }
    try {
      info.textContent = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      info.textContent = text;
    }
  }

  function update() {
    timer = null;
    byId("quality").disabled = byId("quality-auto").checked;
    const path = processingPath();
    const url = pathPrefix + "/insecure" + path;
    setText("built-url", new URL(url, location.href).href);
    byId("open-url").href = url;
    if (controller) controller.abort();
    if (!source()) {
      clearResult();
      setState("idle", "Choose a sample or type a source URL.");
      byId("info").textContent = "";
      return;
    }
    controller = new AbortController();
    const signal = controller.signal;
    setState("loading", signingRequired ? "Loading (this server checks signatures: expect 403)…" : "Loading…");
    const failed = (what) => (error) => {
      if (signal.aborted) return;
      if (what === "image") { clearResult(); setState("error", `${error}`); }
      else byId("info").textContent = `/info failed: ${error}`;
    };
    showImage(url, signal).catch(failed("image"));
    showInfo(pathPrefix + "/info/insecure" + path, signal).catch(failed("info"));
  }

  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(update, debounceMilliseconds);
  }

  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  form.addEventListener("submit", (event) => event.preventDefault());
  byId("source-url").addEventListener("focus", () => { byId("source-custom").checked = true; });
  byId("sample").addEventListener("focus", () => {
    if (!byId("sample").disabled) byId("source-sample").checked = true;
  });
  update();
})();
