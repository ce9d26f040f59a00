/**
 * Defaults of a long-running server (`toolgraph serve`, `toolgraph mcp`), where they differ from
 * the library's.
 *
 * Rebuild debounce: a model rebuild runs on the event loop and blocks it (about 0.3 s at 10,000
 * tools, more on a busy machine). With the library's 50 ms, steady ingestion keeps the server
 * rebuilding and queries starve: `toolgraph bench --case http` measured 34 predictions/s under
 * ingestion at 50 ms, 697 at 1 s and 1,139 at 2 s (2,164 without ingestion), with no trace lost
 * in any. The price is ingestion lag: a recorded trace reaches answers about 2 s later
 * (`toolgraph_ingestion_lag_seconds` shows it).
 */
export const SERVER_REBUILD_DELAY_MS = 2_000;
