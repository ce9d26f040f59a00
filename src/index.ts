/**
 * toolgraph: learns from agents' tool-use traces which tools follow which, and answers
 * next-tool, tool-search and (later) workflow questions. The public library surface.
 */

// The facade most callers want.
export { Toolgraph, type IngestResult, type RestoredCaches, type SetToolsOptions, type SetToolsResult, type ToolgraphOptions } from './service/toolgraph.js';
// The durable service over a store (PGlite folder or PostgreSQL), and the service contract.
export { openToolgraph, type DurableToolgraph, type OpenToolgraphOptions, type OpenReport } from './service/durable-toolgraph.js';
export type { ToolgraphService } from './service/service.js';
export { openStore, type OpenStoreOptions } from './store/open-store.js';
export type { Store, StoreStats, StoredTrace, AppendResult, PatternFilter, PatternHistoryRow, GraphSnapshotRecord } from './store/store.js';
export { encodeGraph, decodeGraph, GRAPH_CODEC_FORMAT, readsGraphFormat, type StoredCaches, type StoredIntentTokens, type StoredSignals, type StoredToolVectors } from './graph/graph-codec.js';
export { exportGraph, toGraphml, type ExportedGraph } from './graph/graph-export.js';

// Errors and boundary types.
export { ToolgraphError, ERROR_CODES, isToolgraphError, type ErrorCode } from './schema/errors.js';
export { inFile, type ErrorLocation } from './schema/errors.js';
export type { Trace, TraceStep, ToolInfo, ToolParam } from './schema/types.js';
export { parseTrace, parseReasoningTrace, workflowToTrace, type ReasoningTrace, type WorkflowRecord } from './schema/trace.js';
export { parseTool } from './schema/tool.js';
export { parseCatalog, readCatalog, type CatalogRead, type ReadCatalogOptions, type SkippedEntry } from './schema/catalog.js';
export { loadDataset, readCatalogJsonl, type Dataset } from './schema/dataset.js';
export { parsePredictRequest, parseSearchRequest, type PredictRequestInput, type SearchRequestInput } from './schema/requests.js';

// The learned graph and its snapshot.
export { TransitionGraph, type TransitionStats, type ToolStats } from './graph/transition-graph.js';
export { buildSnapshot, type GraphSnapshot } from './graph/snapshot.js';
export { pagerank } from './graph/pagerank.js';
export { adamicAdar, adamicAdarFrom } from './graph/adamic-adar.js';
export { louvainCommunities } from './graph/louvain.js';
export { graphDensity, adaptiveAlpha } from './graph/density.js';
export { pathConfidence, hopDistance } from './graph/path-confidence.js';
export { csrFromEdges, symmetrizeCsr, transposeCsr, type Csr } from './graph/csr.js';

// Recommendation.
export { buildModel, PRIOR_WEIGHTS, type FittedWeights, type RecommenderModel } from './recommend/model.js';
export { predictNext, type Prediction, type PredictRequest, type RankedTool, type Profile } from './recommend/predict-next.js';
export { searchTools, type SearchRequest, type SearchResult, type SearchItem } from './recommend/search-tools.js';
export { fitWeights, type FitOptions, type FitReport } from './recommend/fit-weights.js';
export { EMPTY_HINT } from './recommend/empty-store.js';
export { OK_NODE_F1, type DagStatusCalibration } from './recommend/dag/status-threshold.js';
export { SIGNALS, type SignalName, type SignalBreakdown } from './recommend/features.js';

// Spectral co-clustering of tools x capabilities (spec 003 section 4).
export { bipartiteMatrix, type SparseMatrix } from './spectral/bipartite-matrix.js';
export { sparseSvd } from './spectral/sparse-svd.js';
export { coCluster } from './spectral/co-cluster.js';
export { stableLabels } from './spectral/stable-labels.js';
export { hypergraphPagerank } from './spectral/hypergraph-pagerank.js';
export { capabilityScore } from './spectral/capability-score.js';

// Capabilities: registered and learned tool groups, ranked and suggested (spec 003 section 4).
export { parseCapabilities, parseCapabilityRequest, type Capability, type CapabilityInput, type CapabilityRequestInput } from './schema/capability.js';
export { learnCapabilities, type LearnCapabilitiesOptions } from './recommend/learn-capabilities.js';
export { buildCapabilityModel, mergeCapabilities, type CapabilityModel } from './recommend/capability-model.js';
export { rankCapabilities, expandCapability, CAPABILITY_BOOST, SPEC_BOOST, type CapabilityRanking, type RankedCapability, type ExpandedCapability } from './recommend/rank-capabilities.js';
export { CAPABILITY_THRESHOLD, type CapabilitySuggestion, type PredictionItem } from './recommend/capability-items.js';
export { betaReliability, CAPABILITY_PRIOR, type BetaPrior } from './scoring/beta-reliability.js';

// Text.
export { tokenize, splitIdentifier } from './text/tokenize.js';
export { buildBm25, scoreBm25 } from './text/bm25.js';
export { createHashedEmbedder, type HashedEmbedderOptions } from './text/hashed-embedder.js';
export type { Embedder } from './text/embedder.js';
export { createOpenAIEmbedder, detectOpenAIDimensions, type OpenAIEmbedderOptions } from './text/openai-embedder.js';
export { createTransformersEmbedder, checkModelFolder, type TransformersEmbedderOptions, type ModelFolder } from './text/transformers-embedder.js';
export { createEmbedder, parseEmbedderSpec, EMBEDDER_SPEC_FORMS, type EmbedderSpec } from './text/embedder-config.js';

// Trace value and confidence.
export { evaluateValue, evaluateValueDetailed } from './scoring/evaluate-value.js';
export { contributeTrace } from './scoring/contribute-trace.js';
export { VectorCache, type VectorCacheOptions } from './scoring/vector-cache.js';
export type { VectorMatch, VectorNeighbour } from './scoring/vector-cache.js';
export { createPatternConfidence, applyConfidenceEvent } from './scoring/pattern-confidence.js';
export { decayConfidence } from './scoring/decay.js';
export { wilsonLowerBound } from './scoring/wilson.js';

// The feedback loop: edge reliability and human feedback on patterns.
export { edgeReliability, edgeIndex, reliabilityReport, type EdgeReliability, type EdgeReliabilityReport } from './graph/edge-reliability.js';
export { toolReliability, type ToolReliability } from './graph/tool-reliability.js';
export { betaCdf } from './scoring/beta-distribution.js';
export { PatternRegistry, patternId, type PatternRegistryState, type PatternRecord, type PatternDecision } from './service/pattern-registry.js';
export type { PatternView } from './service/pattern-view.js';

// Budget-controlled workflow sessions (spec 002): a service's `sessions.startSession(...)`, then
// `session.step(...)`; the bounded planner's AdaptCommand, the deviation rule, the tiers, telemetry.
export { createSessions, type Session, type Sessions, type SessionView, type SessionMetrics, type SessionServiceOptions, type SessionsDeps } from './service/sessions.js';
export { MemorySessionRows } from './service/memory-session-rows.js';
export type { SessionRows, StoredSession } from './store/session-rows.js';
export type { Recommender, StepResult, BudgetView } from './engine/session.js';
export { sessionOptionsSchema, parseSessionOptions, sessionOptionsFromEnv, SPEC_TIERS, TIER_NAMES, type SessionOptions, type SessionOptionsInput, type TierName } from './engine/options.js';
export { adaptCommandSchema, parseAdaptCommand, ADAPT_OPS, ADAPT_REASONS, type AdaptCommand, type SessionMode } from './schema/session-requests.js';
export { detectTopicDeviation, type TopicDeviation } from './engine/deviation.js';
export { budgetLevel, type BudgetLevel, type BudgetState } from './engine/budget.js';
export { costCents } from './engine/tiers.js';
export { createChatClient, type ChatClient, type ChatMessage, type ChatOutcome } from './engine/chat-client.js';
export type { ModelPort } from './engine/escalation.js';
export { calibrateThreshold, heldOutAnswers, type HeldOutAnswer, type ThresholdCalibration } from './engine/confidence-threshold.js';
export { SPEC_EVENTS, type TelemetryEvent } from './engine/telemetry.js';
