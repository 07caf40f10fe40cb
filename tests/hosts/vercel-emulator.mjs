// Vercel emulator for folio's emitted `output/vercel.json` (legacy `routes`), Node 20, no
// dependencies:
//
//   node tests/hosts/vercel-emulator.mjs <output dir> <port>
//
// serves <output dir> as a Vercel static deployment on 127.0.0.1:<port>, routed by
// <output dir>/vercel.json, and prints `listening` once ready. Stop it with SIGTERM/SIGINT.
//
// What it implements, from Vercel's documentation of `routes` (vercel.json and the Build
// Output API "Route" type) and its open-source router (`@vercel/routing-utils`: route
// normalisation and `resolver.ts`, whose behaviour this follows where the docs are silent):
// - A config with `routes` may not also have rewrites/redirects/headers/cleanUrls/
//   trailingSlash (Vercel refuses the mix); unknown route keys are refused here.
// - `src` is anchored (`^` and `$` added when missing), matched against the current path
//   (initially the request path exactly as sent, query excluded), case-insensitively
//   unless `caseSensitive: true`. `methods` restricts a route to those methods.
// - `has`/`missing` items of type query, header, cookie and host. A query item reads the
//   parsed query: split on `&`, key and value split at the first `=`, both percent-decoded
//   (decodeURIComponent), a repeated key read as its LAST value (resolver: `slice(-1)`).
//   Without `value` an item matches a present, non-empty value; with `value` it matches
//   when `^value$` matches a non-empty value, and its named groups become `$name`. An
//   empty value never matches, so `missing` treats `page=` like no `page`. `has` needs
//   every item, `missing` none.
// - Route `headers` are first-set-wins across matched routes (case-insensitive names);
//   `$1`/`$name` are substituted in headers and `dest` (longest name first). `dest`
//   replaces the current path; a query in `dest` replaces the query. `status` sets the
//   status (a redirect status ends routing). `continue: true` goes on to the next route;
//   `check: true` ends routing when the new path is a file. Any other matched route ends
//   the phase; its path is then looked up in the filesystem, and when that finds no file
//   a route with a `status` and no `dest` ends routing there with that status (vercel
//   dev's exitWithStatus, which mirrors its proxy's exit_with_status).
// - Phases: routes before the first `handle`, then `handle: "filesystem"` (a file at the
//   current path ends routing, else the routes after it run), then a last filesystem
//   lookup, then `handle: "error"` routes with 404 when still nothing matched, and
//   `handle: "hit"` routes (continue-only, headers never overriding) when a file was
//   served. `miss`, `rewrite` and `resource` phases are refused as not modelled.
// - Filesystem: the path's segments percent-decoded, regular files only, never outside the
//   folder (no `..`), no directory listings; Content-Type by extension when no route set
//   one. Nothing matched: 404 with Vercel's plain NOT_FOUND page. HEAD: no body.
// - A file served with 200 carries an `ETag` (a hash of its bytes, as Vercel's CDN gives
//   static files) and no Last-Modified; a matching If-None-Match (weak comparison, lists,
//   `*`) answers 304 with the route headers and no body. 204 and 304 never carry a body
//   (HTTP), so a status-only route such as the OPTIONS ones answers with headers alone.
// Simplifications: no caching, no on-the-fly compression (Vercel compresses at the edge
// itself; `.br`/`.gz` siblings are ordinary files to it), no functions, middleware,
// locales, redirects to other hosts, or Vercel's own handling of unusual methods.

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

const [outArg, portArg] = process.argv.slice(2);
if (!outArg || !portArg) {
  console.error("usage: vercel-emulator.mjs <output dir> <port>");
  process.exit(2);
}
const OUT = fs.realpathSync(outArg);
const config = JSON.parse(fs.readFileSync(path.join(OUT, "vercel.json"), "utf8"));

const ROUTE_KEYS = new Set(["src", "dest", "headers", "methods", "continue", "caseSensitive", "check", "status", "has", "missing"]);
const PHASES = new Set(["filesystem", "hit", "error"]);
for (const k of ["rewrites", "redirects", "headers", "cleanUrls", "trailingSlash"]) {
  if (config.routes && k in config) throw new Error(`vercel.json: \`routes\` cannot be used with \`${k}\``);
}
const phases = { before: [], filesystem: [], hit: [], error: [] };
let hasFilesystem = false;
let current = "before";
for (const [i, route] of (config.routes || []).entries()) {
  if ("handle" in route) {
    if (Object.keys(route).length !== 1) throw new Error(`route ${i}: handle takes no other keys`);
    if (!PHASES.has(route.handle)) throw new Error(`route ${i}: handle "${route.handle}" is not modelled`);
    if (route.handle === "filesystem") hasFilesystem = true;
    current = route.handle;
    continue;
  }
  for (const k of Object.keys(route)) if (!ROUTE_KEYS.has(k)) throw new Error(`route ${i}: unknown key ${k}`);
  let src = route.src;
  if (typeof src !== "string") throw new Error(`route ${i}: no src`);
  if (!src.startsWith("^")) src = "^" + src;
  if (!src.endsWith("$")) src = src + "$";
  src = src.replace(/\\\//g, "/");
  if (current === "hit" && (route.dest || route.status || !route.continue)) {
    throw new Error(`route ${i}: routes after handle "hit" must continue and set no dest or status`);
  }
  phases[current].push({ ...route, re: new RegExp(src, route.caseSensitive ? "" : "i") });
}

const TYPES = {
  ".json": "application/json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".js": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

function decode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseQuery(raw) {
  const q = Object.create(null);
  if (!raw) return q;
  for (const part of raw.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    q[key] = eq < 0 ? "" : decode(part.slice(eq + 1)); // the last occurrence wins
  }
  return q;
}

function groups(m) {
  const out = {};
  for (let i = 1; i < m.length; i++) if (m[i] !== undefined) out[String(i)] = m[i];
  for (const [k, v] of Object.entries(m.groups || {})) if (v !== undefined) out[k] = v;
  return out;
}

function substitute(matches, s) {
  const keys = Object.keys(matches).sort((a, b) => b.length - a.length);
  const marker = "\u0000dollar\u0000";
  for (const k of keys) s = s.split("$" + k).join(matches[k].split("$").join(marker));
  return s.split(marker).join("$");
}

function resolve(req, rawPath, rawQuery) {
  const st = { path: rawPath, query: parseQuery(rawQuery), status: undefined, headers: {}, file: null, finished: false };
  const reqHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) reqHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
  const cookies = {};
  for (const c of (reqHeaders.cookie || "").split(";")) {
    const eq = c.indexOf("=");
    if (eq > 0) cookies[c.slice(0, eq).trim()] = c.slice(eq + 1).trim();
  }

  function lookup(p) {
    const pathname = p.split("?")[0];
    const segs = pathname.split("/").slice(1).map(decode);
    if (segs.some((s) => s === "" || s === "." || s === ".." || s.includes("/") || s.includes("\\") || s.includes("\0"))) return null;
    const file = path.join(OUT, ...segs);
    if (!file.startsWith(OUT + path.sep)) return null;
    try {
      return fs.statSync(file).isFile() ? file : null;
    } catch {
      return null;
    }
  }
  function checkFs(p) {
    const file = lookup(p);
    if (file) {
      st.file = file;
      st.finished = true;
    }
    return !!file;
  }

  function match(route) {
    if (Array.isArray(route.methods) && !route.methods.includes(req.method)) return null;
    const m = route.re.exec(st.path);
    if (!m) return null;
    const matches = groups(m);
    const hasMatch = (item) => {
      let value;
      const key = item.key;
      if (item.type === "query") value = st.query[key];
      else if (item.type === "header") value = reqHeaders[key.toLowerCase()];
      else if (item.type === "cookie") value = cookies[key];
      else if (item.type === "host") value = (reqHeaders.host || "").split(":")[0].toLowerCase();
      if (!value) return false;
      if (item.value === undefined) {
        if (key) matches[key.replace(/[^A-Za-z]/g, "")] = value;
        return true;
      }
      const vm = new RegExp(`^${item.value}$`).exec(value);
      if (!vm) return false;
      Object.assign(matches, groups(vm));
      return true;
    };
    if ((route.has || []).every(hasMatch) && !(route.missing || []).some(hasMatch)) return matches;
    return null;
  }

  function run(routes, phase) {
    for (const route of routes) {
      const matches = match(route);
      if (!matches) continue;
      if (phase === "error" && route.status && route.status !== st.status) continue;
      for (const [k, v] of Object.entries(route.headers || {})) {
        if (!(k.toLowerCase() in st.headers)) st.headers[k.toLowerCase()] = substitute(matches, v);
      }
      if (route.dest) {
        const dest = substitute(matches, route.dest);
        const q = dest.indexOf("?");
        st.path = (q < 0 ? dest : dest.slice(0, q)).replace(/\\+/g, "/").replace(/\/\/+/g, "/");
        if (q >= 0) st.query = parseQuery(dest.slice(q + 1));
      }
      if (route.status) {
        st.status = route.status;
        if ([301, 302, 303, 307, 308].includes(route.status)) {
          st.finished = true;
          break;
        }
      }
      if (route.check) {
        if (checkFs(st.path)) break;
      } else if (!route.continue) {
        if (st.path.startsWith("/")) checkFs(st.path);
        // A status without a dest, on no file, ends routing with that status and the
        // route's headers (vercel dev's exitWithStatus, "now-proxy exit_with_status").
        if (!st.finished && route.status && !route.dest) st.finished = true;
        break;
      }
    }
  }

  run(phases.before, "before");
  if (!st.finished && hasFilesystem) checkFs(st.path);
  if (!st.finished) run(phases.filesystem, "filesystem");
  if (!st.finished) checkFs(st.path);
  if (!st.finished) {
    st.status = st.status || 404;
    run(phases.error, "error");
  }
  if (st.file) run(phases.hit, "hit");
  return st;
}

const server = http.createServer((req, res) => {
  const q = req.url.indexOf("?");
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const rawQuery = q < 0 ? undefined : req.url.slice(q + 1);
  let status;
  let headers;
  let body;
  try {
    const st = resolve(req, rawPath, rawQuery);
    headers = st.headers;
    if (st.file) {
      status = st.status || 200;
      body = fs.readFileSync(st.file);
      if (!("content-type" in headers)) headers["content-type"] = TYPES[path.extname(st.file)] || "application/octet-stream";
      if (status === 200) {
        const etag = `"${crypto.createHash("sha1").update(body).digest("hex")}"`;
        headers["etag"] = etag;
        const inm = req.headers["if-none-match"];
        const opaque = (t) => t.trim().replace(/^W\//, "");
        if (inm !== undefined && inm.split(",").some((t) => t.trim() === "*" || opaque(t) === opaque(etag))) {
          status = 304;
        }
      }
    } else {
      status = st.status && st.status !== 200 ? st.status : 404;
      body = Buffer.from("The page could not be found\n\nNOT_FOUND\n");
      headers["content-type"] = "text/plain; charset=utf-8";
    }
  } catch (e) {
    console.error(e);
    status = 500;
    headers = { "content-type": "text/plain" };
    body = Buffer.from("emulator error\n");
  }
  if (status === 204 || status === 304) {
    delete headers["content-type"];
    res.writeHead(status, headers);
    res.end();
    return;
  }
  res.writeHead(status, { ...headers, "content-length": String(body.length) });
  res.end(req.method === "HEAD" ? undefined : body);
});
server.listen(Number(portArg), "127.0.0.1", () => console.log("listening"));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
