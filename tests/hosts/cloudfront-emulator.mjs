// CloudFront + S3 emulator for folio's emitted `hosting/cloudfront-function.js`
// (Node 20, no dependencies). It plays the distribution the function's header describes:
//
//   node tests/hosts/cloudfront-emulator.mjs <function.js> <output dir> <port> [cache-control]
//
// binds 127.0.0.1:<port> and prints `listening` once ready. Stop it with SIGTERM/SIGINT.
//
// Per request, as CloudFront does for the `{mount}/api/*` behavior:
// 1. Viewer-request event (documented "CloudFront Functions event structure", version 1.0):
//    `request.method`; `request.uri` = the path exactly as sent (escapes and dot segments
//    kept, never normalised); `request.querystring` = one field per key as sent (names and
//    values undecoded), `value` = the first occurrence, `multiValue` = all of them when a
//    key repeats, a bare key reads as "", empty pairs (`&&`, a trailing `&`) are dropped;
//    `request.rawQueryString()` (runtime 2.0 helper) = the query after `?` unparsed and
//    unchanged, "" for a bare `?`, undefined without `?`; headers lowercased; cookies.
// 2. The function runs in a fresh `vm` context: only ECMAScript built-ins, no require, no
//    fetch, no timers (`console` is provided, as CloudFront logs it). The file is first
//    checked with `node --check`.
// 3. A returned response is sent as is (statusCode, statusDescription, headers with
//    `value`/`multiValue`, body as a string or {encoding: text|base64, data}). A returned
//    request goes to the S3 origin with its (possibly rewritten) uri.
// 4. S3 origin: the object key is the percent-decoded uri without its leading `/`, keys
//    being the output folder as `folio deploy` uploads it (the function header's step 1):
//    no dotfiles, no symlinks (each part of the path is checked with lstat), pages and
//    other `.json` as `application/json; charset=utf-8`, `api/errors/*.json` as
//    `application/problem+json`, others by extension, under the mount taken from the
//    function's API constant. S3 has no directories and no listings; `..` is a literal
//    key part, so nothing outside the output folder is ever read. A missing key is 403
//    (origin access control without ListBucket). An object carries S3's validators:
//    `ETag` = the quoted MD5 hex of its bytes (a single-part upload, as folio deploy
//    makes), `Last-Modified` = its upload time (here the file's mtime; folio deploy uploads
//    only changed files, so unchanged ones keep theirs).
// 5. Custom error responses (distribution-wide, not per path): 403 and 404 from S3 serve
//    the document the function's header names (step 4: "response page path P, response
//    code 404"), with status 404.
// 6. Conditional requests on a 200 from S3 (or CloudFront's cached copy of it), per
//    RFC 9110 §13.2.2: If-None-Match (weak comparison, lists, `*`) or, without it,
//    If-Modified-Since at or after Last-Modified → 304 with the headers of the 200 and no
//    body.
// 7. The response-headers policy of the function header (Access-Control-Allow-Origin `*`
//    overriding the origin, Cache-Control from the argument and `Vary: Accept-Encoding`
//    only where the response has none) is applied to every response of the behavior,
//    function-generated ones included. HEAD responses carry no body.
// Not modelled: caching, edge compression (CloudFront would gzip/br the JSON on the fly
// for clients that accept it), methods CloudFront refuses before the function runs.

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";

const [fnFile, outArg, portArg, cacheArg] = process.argv.slice(2);
if (!fnFile || !outArg || !portArg) {
  console.error("usage: cloudfront-emulator.mjs <function.js> <output dir> <port> [cache-control]");
  process.exit(2);
}
const OUT = fs.realpathSync(outArg);
const CACHE_CONTROL = cacheArg || "public, max-age=300";

const check = spawnSync(process.execPath, ["--check", fnFile], { encoding: "utf8" });
if (check.status !== 0) {
  console.error(`node --check ${fnFile} failed:\n${check.stderr}`);
  process.exit(1);
}
const SOURCE = fs.readFileSync(fnFile, "utf8");
const SCRIPT = new vm.Script(SOURCE, { filename: fnFile });

function loadFunction() {
  const context = vm.createContext({ console });
  SCRIPT.runInContext(context, { timeout: 1000 });
  if (typeof context.handler !== "function") throw new Error("the function defines no handler(event)");
  return context;
}
// The mount comes from the function itself: API = "{mount}/api/".
const API = loadFunction().API;
if (typeof API !== "string" || !API.endsWith("/api/")) throw new Error("no API constant in the function");
const MOUNT = API.slice(0, -"/api/".length);
// The custom error response, as the function's header asks for it.
const ERROR_PAGE = /response page path (\S+), response code 404/.exec(SOURCE);
if (!ERROR_PAGE) throw new Error("the function's header names no custom error response");
const ERROR_DOCUMENT = ERROR_PAGE[1];

// The Content-Types `folio deploy` sets (src/deploy/local.rs, routes::content_type).
const TYPES = {
  ".json": "application/json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

function typeOf(rel) {
  if (/^api\/errors\/[a-z_]+\.json$/.test(rel)) return "application/problem+json";
  return TYPES[path.extname(rel)] || "application/octet-stream";
}

function fields(pairs) {
  const obj = {};
  for (const [k, v] of pairs) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) obj[k] = { value: v };
    else {
      const f = obj[k];
      if (!f.multiValue) f.multiValue = [{ value: f.value }];
      f.multiValue.push({ value: v });
    }
  }
  return obj;
}

function buildEvent(req, rawPath, rawQuery) {
  const qpairs = [];
  if (rawQuery) {
    for (const part of rawQuery.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      qpairs.push(eq < 0 ? [part, ""] : [part.slice(0, eq), part.slice(eq + 1)]);
    }
  }
  const hpairs = [];
  const cpairs = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    if (name === "cookie") {
      for (const c of value.split(";")) {
        const t = c.trim();
        if (!t) continue;
        const eq = t.indexOf("=");
        cpairs.push(eq < 0 ? [t, ""] : [t.slice(0, eq), t.slice(eq + 1)]);
      }
    } else hpairs.push([name, value]);
  }
  const request = {
    method: req.method,
    uri: rawPath,
    querystring: fields(qpairs),
    headers: fields(hpairs),
    cookies: fields(cpairs),
  };
  // A method, as documented; not enumerable so the request object stays plain data.
  Object.defineProperty(request, "rawQueryString", { value: () => rawQuery, enumerable: false });
  return {
    version: "1.0",
    context: { distributionDomainName: "d111111abcdef8.cloudfront.net", distributionId: "EMULATOR",
      eventType: "viewer-request", requestId: String(Date.now()) },
    viewer: { ip: req.socket.remoteAddress },
    request,
  };
}

// The S3 object for a URI, or null when the key does not exist.
function s3Object(uri) {
  const prefix = MOUNT + "/";
  if (!uri.startsWith(prefix)) return null;
  let segs;
  try {
    segs = uri.slice(prefix.length).split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  // Keys are literal: "", ".", ".." or a decoded "/" never name a file of the folder, and
  // dotfiles were not uploaded.
  if (segs.some((s) => s === "" || s.startsWith(".") || s.includes("/") || s.includes("\\") || s.includes("\0"))) {
    return null;
  }
  const file = path.join(OUT, ...segs);
  if (!file.startsWith(OUT + path.sep)) return null;
  // folio deploy uploads no symlink, nor anything below one.
  let at = OUT;
  for (const seg of segs) {
    at = path.join(at, seg);
    let st;
    try {
      st = fs.lstatSync(at);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) return null;
  }
  if (!fs.lstatSync(file).isFile()) return null;
  // folio deploy uploads no precompressed sibling unless `[deploy] siblings = true`.
  if (/\.json\.(br|gz)$/.test(file)) return null;
  return { file, type: typeOf(segs.join("/")) };
}

function originResponse(uri) {
  let obj = s3Object(uri);
  let status = 200;
  if (!obj) {
    status = 404; // 403 from S3, mapped by the custom error response
    obj = s3Object(ERROR_DOCUMENT);
    if (!obj || !fs.existsSync(obj.file)) {
      return { status: 403, headers: { "content-type": "application/xml" }, body: Buffer.from("<Error><Code>AccessDenied</Code></Error>") };
    }
  }
  const body = fs.readFileSync(obj.file);
  const headers = { "content-type": obj.type };
  if (status === 200) {
    headers["etag"] = `"${crypto.createHash("md5").update(body).digest("hex")}"`;
    headers["last-modified"] = fs.statSync(obj.file).mtime.toUTCString();
  }
  return { status, headers, body };
}

// Weak comparison: the opaque tags without any W/ prefix.
function opaque(tag) {
  return tag.trim().replace(/^W\//, "");
}

function notModified(req, r) {
  const etag = r.headers["etag"];
  if (r.status !== 200 || !etag) return false;
  const inm = req.headers["if-none-match"];
  if (inm !== undefined) {
    return inm.split(",").some((t) => t.trim() === "*" || opaque(t) === opaque(etag));
  }
  const ims = req.headers["if-modified-since"];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(r.headers["last-modified"]) <= since;
}

function fromFunction(res) {
  const headers = {};
  for (const [name, f] of Object.entries(res.headers || {})) {
    headers[name.toLowerCase()] = f.multiValue ? f.multiValue.map((x) => x.value) : f.value;
  }
  let body = Buffer.alloc(0);
  if (typeof res.body === "string") body = Buffer.from(res.body, "utf8");
  else if (res.body && typeof res.body === "object") {
    body = Buffer.from(res.body.data || "", res.body.encoding === "base64" ? "base64" : "utf8");
  }
  return { status: res.statusCode, reason: res.statusDescription, headers, body };
}

function applyPolicy(r) {
  r.headers["access-control-allow-origin"] = "*";
  if (!("cache-control" in r.headers)) r.headers["cache-control"] = CACHE_CONTROL;
  if (!("vary" in r.headers)) r.headers["vary"] = "Accept-Encoding";
}

function handle(req) {
  const target = req.url;
  const q = target.indexOf("?");
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? undefined : target.slice(q + 1);
  const inBehavior = rawPath.startsWith(API);
  if (!inBehavior) return originResponse(rawPath);
  const ctx = loadFunction();
  const event = buildEvent(req, rawPath, rawQuery);
  const out = ctx.handler(event);
  let r;
  if (out && typeof out.statusCode === "number") r = fromFunction(out);
  else if (out && typeof out.uri === "string") {
    if (!out.uri.startsWith("/")) throw new Error(`function returned uri ${out.uri} not starting with /`);
    r = originResponse(out.uri);
    if (notModified(req, r)) r = { status: 304, headers: r.headers, body: Buffer.alloc(0) };
  } else throw new Error("the function returned neither a request nor a response");
  applyPolicy(r);
  return r;
}

const server = http.createServer((req, res) => {
  let r;
  try {
    r = handle(req);
  } catch (e) {
    // CloudFront answers a failing function with 503.
    console.error(e);
    r = { status: 503, headers: { "content-type": "text/plain" }, body: Buffer.from("function error\n") };
  }
  const headers = { ...r.headers };
  if (r.status !== 304 && r.status !== 204) headers["content-length"] = String(r.body.length);
  res.writeHead(r.status, r.reason, headers);
  res.end(req.method === "HEAD" ? undefined : r.body);
});
server.listen(Number(portArg), "127.0.0.1", () => console.log("listening"));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
