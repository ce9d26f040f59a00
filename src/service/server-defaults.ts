/**
 * Defaults of a long-running server (`toolgraph serve`, `toolgraph mcp`), where they differ from
 * the library's.
 *
 * Rebuild debounce: a model rebuild runs on the event loop and blocks it (0.3 s at 10,000 tools
 * with few capabilities; 1.4 to 2.1 s in the `http` bench, whose 163,339 traces yield 24,307
 * learned capabilities). With the library's 50 ms, steady ingestion keeps the server
 * rebuilding and queries starve: `npm run bench -- --case http` measured 34 predictions/s under
 * ingestion at 50 ms, 697 at 1 s and 1,139 at 2 s (2,164 without ingestion), with no trace lost
 * in any. The price is ingestion lag: a recorded trace reaches answers about 2 s later
 * (`toolgraph_ingestion_lag_seconds` shows it).
 */
export const SERVER_REBUILD_DELAY_MS = 2_000;

/**
 * V8 flags for a server process: a young generation of 64 MB semi-spaces instead of V8's
 * default 16 MB. A prediction allocates about 20 KB over HTTP, so at 6,000 requests/s the
 * default's scavenges come ten times a second, each holding the event loop 1.5 to 3 ms: that
 * alone put about 1% of requests above 2 ms. 64 MB makes them a quarter as frequent
 * (`npm run bench -- --case http`, docs/decisions/http-load.md). V8 reads the flag only at start-up, so it sits in the
 * `toolgraph` command's shebang (a test keeps the two equal); started otherwise, pass it in
 * NODE_OPTIONS.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
