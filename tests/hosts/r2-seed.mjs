// The tests' way into wrangler's local R2 (which has no S3 API): a Worker bound to the same
// bucket that stores each PUT body under the request's path, as `folio deploy` would have
// through R2's S3 API. Run with the same --persist-to as the Worker under test.
export default {
  async fetch(request, env) {
    if (request.method !== "PUT") return new Response("PUT only", { status: 405 });
    const key = decodeURIComponent(new URL(request.url).pathname.slice(1));
    await env.BUCKET.put(key, await request.arrayBuffer());
    return new Response("stored " + key);
  },
};
