import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/graph/rng.js';
import { TransitionGraph } from '../../src/graph/transition-graph.js';
import { hasUnknownWord, SIGNALS } from '../../src/recommend/features.js';
import { INTENT_EPSILON } from '../../src/recommend/linear-profile.js';
import { buildModel, EXPERT_WEIGHTS, PRIOR_WEIGHTS } from '../../src/recommend/model.js';
import { coverage, explains, intentSimilarity, queryWords } from '../../src/recommend/query-coverage.js';
import { searchTools } from '../../src/recommend/search-tools.js';
import { parseSearchRequest } from '../../src/schema/requests.js';
import type { ToolInfo } from '../../src/schema/types.js';
import { hashedTextEmbedding } from '../../src/text/text-embedding.js';
import { tokenizeByWord } from '../../src/text/tokenize.js';
import { trace } from '../helpers/traces.js';

const tool = (name: string, description: string): ToolInfo => ({ name, description, params: [] });
const catalog = new Map(
  [
    tool('weather_forecast', 'Get the weather forecast for a city'),
    tool('flight_search', 'Search flights between two airports'),
    tool('currency_convert', 'Convert an amount between currencies'),
  ].map((t) => [t.name, t]),
);

/**
 * The product of experts with a weight on never-called tools' descriptions, as a fit gives it
 * (fitUnseen): how a fitted store finds a catalogue entry no trace has called yet.
 */
const WITH_UNSEEN = { ...EXPERT_WEIGHTS, search: EXPERT_WEIGHTS.search.map((w, f) => (SIGNALS[f] === 'lexicalUnseen' ? -Math.log(INTENT_EPSILON) : w)) };

const scores = (items: readonly { tool: string; score: number }[]) => new Map(items.map((i) => [i.tool, i.score]));

function model(weights = EXPERT_WEIGHTS) {
  const g = new TransitionGraph();
  for (const name of catalog.keys()) g.addTool(name);
  g.ingest(trace(['currency_convert'], { intent: 'how many yen is ten euros' }));
  g.ingest(trace(['weather_forecast'], { intent: 'will it rain' }));
  g.ingest(trace(['flight_search'], { intent: 'fly to Rome' }));
  return buildModel(g, catalog, weights, { embedding: hashedTextEmbedding() });
}

describe('searchTools', () => {
  it('ranks by the hybrid signals, with the embedding in the breakdown', () => {
    const result = searchTools(model(), { query: 'weather forecast in Paris', context: [], k: 2 });
    expect(result.kind).toBe('results');
    expect(result.items[0]!.tool).toBe('weather_forecast');
    expect(result.items[0]!.signals.embedding).toBeGreaterThan(0.2);
    expect(result.coverage).toBeGreaterThan(0);
  });

  it('learns words from intents: a word only past intents used still finds the tool', () => {
    const result = searchTools(model(), { query: 'yen', context: [], k: 1 });
    expect(result.kind).toBe('results');
    expect(result.items[0]!.tool).toBe('currency_convert');
  });

  it('answers no-match, with the nearest tools and the unmatched words, when nothing fits', () => {
    const result = searchTools(model(), { query: 'knit a woollen scarf', context: [], k: 2 });
    expect(result.kind).toBe('no-match');
    expect(result.items).toHaveLength(2);
    expect(result.coverage).toBe(0);
    expect(result.unmatched).toEqual(['knit', 'woollen', 'scarf']);
    expect(result.hint).toBe('no tool fits: "knit", "woollen", "scarf" matched nothing in the best tools');
    expect(result.hint).toContain('"knit"');
    // A word the tokenizer splits into parts (an identifier) is named once, as written.
    const id = searchTools(model(), { query: 'knit the scarf "Xq7ZpK9w"', context: [], k: 2 });
    expect(id.kind).toBe('no-match');
    expect(id.unmatched).toEqual(['knit', 'scarf', 'Xq7ZpK9w']);
  });

  it('multiplies relevance by reliability without context: a tool whose calls keep failing drops, then is left out', () => {
    const hotels = new Map(
      [tool('hotel_search', 'Search hotels in a city'), tool('hotel_book', 'Book a hotel room'), tool('hotel_reserve', 'Book a hotel room')].map((t) => [t.name, t]),
    );
    const withFailures = (failures: number) => {
      const g = new TransitionGraph();
      for (const name of hotels.keys()) g.addTool(name);
      for (let i = 0; i < 4; i++) g.ingest(trace(['hotel_search', 'hotel_book'], { intent: 'book a hotel room', timestamp: 1_000 + i }));
      for (let i = 0; i < 4; i++) g.ingest(trace(['hotel_search', 'hotel_reserve'], { intent: 'book a hotel room', timestamp: 1_000 + i }));
      for (let i = 0; i < failures; i++) g.ingest(trace(['hotel_search', { name: 'hotel_reserve', ok: false }], { intent: 'book a hotel room', success: false, timestamp: 2_000 + i }));
      return buildModel(g, hotels, PRIOR_WEIGHTS, { embedding: hashedTextEmbedding() });
    };
    const query = { query: 'book a hotel room', context: [], k: 3 };
    // Successes only: every tool at reliability 1, the two booking tools close.
    const even = searchTools(withFailures(0), query);
    const score = (result: typeof even, name: string) => result.items.find((i) => i.tool === name)!;
    expect(even.items.every((i) => i.reliability === 1)).toBe(true);
    // Four successes and six failures into hotel_reserve: Beta(5, 7), its probability multiplied
    // by its mean / (1/2) against hotel_book's (failed traces add nothing to the other signals here).
    const failing = searchTools(withFailures(6), query);
    const reserve = score(failing, 'hotel_reserve');
    expect(reserve.reliability).toBeCloseTo(5 / 12 / 0.5, 5); // the successes are a second older: decayed a hair
    expect(score(failing, 'hotel_book').reliability).toBe(1);
    const ratio = (result: typeof even) => score(result, 'hotel_reserve').score / score(result, 'hotel_book').score;
    expect(ratio(failing)).toBeCloseTo(ratio(even) * reserve.reliability, 9);
    expect(failing.items[0]!.tool).toBe('hotel_book');
    // With context the transition's own reliability is reported: the same evidence here.
    const after = searchTools(withFailures(6), { ...query, context: ['hotel_search'] });
    expect(score(after, 'hotel_reserve').reliability).toBeCloseTo(5 / 12 / 0.5, 5);
    // Twenty failures: credibly failing, so search leaves it out.
    const excluded = searchTools(withFailures(20), query);
    expect(excluded.items.map((i) => i.tool)).not.toContain('hotel_reserve');
    expect(excluded.items.map((i) => i.tool)).toContain('hotel_book');
  });

  it('says so when every tool that could answer has been failing', () => {
    const g = new TransitionGraph();
    for (let i = 0; i < 20; i++) g.ingest(trace([{ name: 'hotel_book', ok: false }, { name: 'hotel_search', ok: false }, { name: 'hotel_book', ok: false }], { intent: 'book a hotel', success: false, timestamp: 1_000 + i }));
    const result = searchTools(buildModel(g, new Map(), PRIOR_WEIGHTS), { query: 'book a hotel', k: 3 });
    expect(result).toMatchObject({ kind: 'no-match', items: [], hint: 'no tool fits: every candidate has been failing (failure rate credibly above 1/2)' });
  });

  it('before a fit, matches a request when a word of it matched, however little it covers', () => {
    const unfitted = model();
    // "weather" is explained, "Paris" and "tomorrow" are not.
    const partly = searchTools(unfitted, { query: 'weather in Paris tomorrow', context: [], k: 3 });
    expect(partly.kind).toBe('results');
    expect(partly.coverage).toBeGreaterThan(0);
    expect(partly.coverage).toBeLessThan(0.5);
    expect(partly.similarity).toBeUndefined();
  });

  it('applies a fitted no-match calibration: the three readings weighed together, the words alone with context', () => {
    // Held-out readings as a fit would keep them (no-match.ts): each p-value is (#{s <= x} + 1/2) / 5.
    const noMatch = { coverage: [0.5, 0.7, 1, 1], similarity: [0.3, 0.7, 1, 1], confidence: [0.6, 0.9, 0.99, 1], threshold: -3.5, wordsThreshold: -2.5 };
    const calibrated = model({ ...EXPERT_WEIGHTS, noMatch });
    // Covered well, like a recorded request, the ranking sure of it: fits, its similarity reported.
    const familiar = searchTools(calibrated, { query: 'how many yen for twenty euros', context: [], k: 2 });
    expect(familiar.kind).toBe('results');
    expect(familiar.items[0]!.tool).toBe('currency_convert');
    expect(familiar.similarity).toBeGreaterThan(0.7);
    // Covered whole, but like no recorded request and the ranking less sure: together too unusual.
    const foreign = searchTools(calibrated, { query: 'convert an amount between currencies', context: [], k: 2 });
    expect(foreign.coverage).toBe(1);
    expect(foreign.similarity).toBe(0);
    expect(foreign.items[0]!.score).toBeLessThan(0.9);
    expect(foreign.kind).toBe('no-match');
    expect(foreign.items).toHaveLength(2);
    expect(foreign.hint).toBe(`no tool fits: no recorded request resembles this one (similarity 0.00); the ranking is unsure of its first tool (probability ${foreign.items[0]!.score.toFixed(2)})`);
    // With context the probability is the next-tool ranker's, which was not calibrated: the two
    // word readings alone decide, against their own threshold (log 0.9 + log 0.1 > -2.5).
    const withContext = searchTools(calibrated, { query: 'convert an amount between currencies', context: ['flight_search'], k: 3 });
    expect(withContext.kind).toBe('results');
    expect(searchTools(calibrated, { query: 'convert an amount between currencies', context: [], k: 3, profile: 'seed' }).kind).toBe('results');
    // Nothing explains it: the words come first in the hint.
    const knit = searchTools(calibrated, { query: 'knit a woollen scarf', context: ['flight_search'], k: 2 });
    expect(knit.kind).toBe('no-match');
    expect(knit.hint).toBe('no tool fits: "knit", "woollen", "scarf" matched nothing in the best tools (coverage 0.00); no recorded request resembles this one (similarity 0.00)');
    // A tool no recorded request called covers the request: its similarity counts as typical.
    const withNew = new Map([...catalog, ['knitting_patterns', tool('knitting_patterns', 'Knitting patterns for a woollen scarf')]]);
    const g = new TransitionGraph();
    for (const name of withNew.keys()) g.addTool(name);
    g.ingest(trace(['currency_convert'], { intent: 'how many yen is ten euros' }));
    g.ingest(trace(['weather_forecast'], { intent: 'will it rain' }));
    const grown = buildModel(g, withNew, { ...WITH_UNSEEN, noMatch }, { embedding: hashedTextEmbedding() });
    const patterns = searchTools(grown, { query: 'knitting patterns for a woollen scarf', context: [], k: 2 });
    expect(patterns.similarity).toBe(0);
    expect(patterns).toMatchObject({ kind: 'results' });
    expect(patterns.items[0]!.tool).toBe('knitting_patterns');
    // The same request unlike any recorded one, covered only by tools that were asked for: refused.
    expect(searchTools(grown, { query: 'convert an amount between currencies', context: [], k: 2 }).kind).toBe('no-match');
  });

  it('gives the same verdict, coverage and hint for every k: the readings are the first five tools', () => {
    // "euros" is currency_convert's (a recorded intent's word), "flights between two airports"
    // flight_search's: the first tool covers a third, the second most of the request.
    const unfitted = model();
    const query = 'euros for flights between two airports';
    const answers = [1, 2, 3, 5, 10].map((k) => searchTools(unfitted, { query, context: [], k }));
    expect(answers[0]!.items.map((i) => i.tool)).toEqual(['currency_convert']);
    expect(answers[1]!.items.map((i) => i.tool)).toEqual(['currency_convert', 'flight_search']);
    for (const answer of answers) {
      expect(answer.kind).toBe('results');
      expect(answer.coverage).toBe(answers[4]!.coverage);
      expect(answer.coverage).toBeGreaterThan(0.5);
      expect(answer.items).toEqual(answers[4]!.items.slice(0, answer.items.length));
    }
    // Refused alike at every k, the hint naming the same words.
    const refused = [1, 3, 10].map((k) => searchTools(unfitted, { query: 'knit a woollen scarf', context: [], k }));
    for (const answer of refused) expect(answer).toMatchObject({ kind: 'no-match', coverage: 0, unmatched: ['knit', 'woollen', 'scarf'], hint: refused[0]!.hint });
    // Under a fitted calibration too (its readings were taken at five tools).
    const noMatch = { coverage: [0.3, 0.5, 0.7, 1], similarity: [0, 0.1, 0.5, 1], confidence: [0.2, 0.4, 0.9, 1], threshold: -4, wordsThreshold: -3 };
    const calibrated = model({ ...EXPERT_WEIGHTS, noMatch });
    const kinds = [1, 2, 3, 5].map((k) => searchTools(calibrated, { query, context: [], k }));
    for (const answer of kinds) expect(answer).toMatchObject({ kind: kinds[3]!.kind, coverage: kinds[3]!.coverage, similarity: kinds[3]!.similarity });
  });

  it('gives every k the same verdict and a prefix of the same ranking, on random catalogues and requests', () => {
    const rng = createRng(23);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
    const vocabulary = Array.from({ length: 30 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`);
    const phrase = (n: number) => Array.from({ length: n }, () => pick(vocabulary)).join(' ');
    const noMatch = { coverage: [0.2, 0.4, 0.6, 0.8, 1], similarity: [0, 0.2, 0.4, 0.6, 1], confidence: [0.1, 0.2, 0.4, 0.6, 1], threshold: -4, wordsThreshold: -3 };
    let refused = 0;
    let answered = 0;
    for (let round = 0; round < 4; round++) {
      const tools = new Map(Array.from({ length: 12 }, (_, i) => [`tool_${round}_${i}`, tool(`tool_${round}_${i}`, phrase(5))]));
      const names = [...tools.keys()];
      const g = new TransitionGraph();
      for (const name of names) g.addTool(name);
      for (let t = 0; t < 40; t++) g.ingest(trace(Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(names)), { intent: phrase(3 + Math.floor(rng() * 4)) }));
      for (const weights of [EXPERT_WEIGHTS, { ...EXPERT_WEIGHTS, noMatch }]) {
        const m = buildModel(g, tools, weights, { embedding: hashedTextEmbedding() });
        for (let q = 0; q < 25; q++) {
          // Some requests of words no tool has: refused by the rule before a fit too.
          const query = rng() < 0.25 ? 'unheardof zzyzx' : `${phrase(1 + Math.floor(rng() * 4))}${rng() < 0.3 ? ' unheardof' : ''}`;
          const all = searchTools(m, { query, context: [], k: 12 });
          const five = searchTools(m, { query, context: [], k: 5 });
          if (five.kind === 'no-match') refused++;
          else answered++;
          for (const k of [1, 2, 3, 4, 7, 12]) {
            const answer = searchTools(m, { query, context: [], k });
            expect(answer.items).toEqual(all.items.slice(0, k));
            expect({ ...answer, items: [] }).toEqual({ ...five, items: [] });
          }
        }
      }
    }
    // Both verdicts were put to the test.
    expect(refused).toBeGreaterThan(10);
    expect(answered).toBeGreaterThan(10);
  });

  it('measures the similarity to the nearest recorded request as a tf-idf cosine over the intents', () => {
    const m = model();
    const sim = (text: string) => intentSimilarity(m.text, queryWords(m.text, tokenizeByWord(text)));
    // A recorded request itself: 1; nothing in common: 0; nothing to compare with: 0.
    expect(sim('how many yen is ten euros')).toBeCloseTo(1, 10);
    expect(sim('knit a woollen scarf')).toBe(0);
    expect(sim('')).toBe(0);
    // By hand for "rain in Rome": two words, each in one recorded request ("will it rain", "fly to Rome").
    const words = queryWords(m.text, tokenizeByWord('rain in Rome'));
    const index = m.text.intent.examples;
    const idf = (w: string) => index.idf[index.terms.indexOf(w)]!;
    const q = Math.hypot(...words.map((w) => w.weight));
    const doc = (terms: string[]) => Math.hypot(...terms.map(idf));
    const rain = words.find((w) => w.word === 'rain')!;
    const rainDoc = tokenizeByWord('will it rain').flat();
    expect(sim('rain in Rome')).toBeCloseTo(Math.max((rain.weight * idf('rain')) / (q * doc(rainDoc)), (words.find((w) => w.word === 'rome')!.weight * idf('rome')) / (q * doc(tokenizeByWord('fly to Rome').flat()))), 10);
    // A word nothing has seen weighs the most there is, so it lowers the similarity.
    expect(sim('rain in Rome zzyzx')).toBeLessThan(sim('rain in Rome'));
    // The scratch is cleared between calls: the same answer twice.
    expect(sim('rain in Rome')).toBe(sim('rain in Rome'));
  });

  it('reaches a misspelt tool through the embedding neighbours, which only unknown words look for', () => {
    const m = model();
    expect(hasUnknownWord(m.text, ['weather', 'yen'])).toBe(false); // a catalogue word, an intent word
    expect(hasUnknownWord(m.text, ['weather', 'currensy'])).toBe(true);
    // No word is known and no trace called the tool, so neither the lexical nor the intent
    // score touches it: only the neighbours can (without them the traced tools come first).
    const g = new TransitionGraph();
    for (const name of catalog.keys()) g.addTool(name);
    g.ingest(trace(['weather_forecast'], { intent: 'will it rain' }));
    g.ingest(trace(['flight_search'], { intent: 'fly to Rome' }));
    const untraced = buildModel(g, catalog, EXPERT_WEIGHTS, { embedding: hashedTextEmbedding() });
    const result = searchTools(untraced, { query: 'currensy convertt', context: [], k: 3 });
    const found = result.items.find((item) => item.tool === 'currency_convert')!;
    expect(found.signals.embedding).toBeGreaterThan(0.2);
    expect(found.signals.lexical).toBe(0);
    expect(found.signals.intent).toBe(0);
  });

  it('finds, before any fit, a tool no trace has called by its description, and waits for a fit to learn from intents', () => {
    // A catalogue entry no trace has used yet, beside two tools traces called for an unrelated
    // intent. The plain product of experts keeps it last whatever its description says: its
    // intent factor is floored at 1e-8. Before a fit a store ranks by the lexical rule instead.
    const g = new TransitionGraph();
    const fresh = new Map([...catalog, ['kangaroo_tracker', tool('kangaroo_tracker', 'Track kangaroo and platypus sightings')]]);
    for (const name of fresh.keys()) g.addTool(name);
    g.ingest(trace(['weather_forecast', 'flight_search'], { intent: 'hello' }));
    g.ingest(trace(['currency_convert'], { intent: 'how many yen is ten euros' }));
    const unfitted = buildModel(g, fresh, PRIOR_WEIGHTS, { embedding: hashedTextEmbedding() });
    const found = searchTools(unfitted, { query: 'kangaroo platypus', context: [], k: 3 });
    expect(found.kind).toBe('results');
    expect(found.items[0]!.tool).toBe('kangaroo_tracker');
    expect(found.items[0]!.score).toBeGreaterThan(0.5);
    const expert = searchTools(buildModel(g, fresh, EXPERT_WEIGHTS, { embedding: hashedTextEmbedding() }), { query: 'kangaroo platypus', context: [], k: 3 });
    expect(expert.items[0]!.tool).not.toBe('kangaroo_tracker');
    // A word only past intents used is the fitted ranker's to learn (the product of experts
    // finds it); the rule reads descriptions only.
    expect(searchTools(buildModel(g, fresh, EXPERT_WEIGHTS), { query: 'yen', context: [], k: 1 }).items[0]!.tool).toBe('currency_convert');
    expect(searchTools(unfitted, { query: 'yen', context: [], k: 1 }).items[0]!.signals.lexical).toBe(0);
  });

  it('computes coverage as the idf-weighted share of query words a tool explains', () => {
    const m = model();
    const words = queryWords(m.text, [['weather'], ['unknownword']]);
    const weather = m.graph.indexByName.get('weather_forecast')!;
    const { best, unmatched } = coverage(m.text, words, [weather], 1);
    const [w, u] = words;
    expect(best).toBeCloseTo(w!.weight / (w!.weight + u!.weight));
    expect(u!.weight).toBeGreaterThanOrEqual(w!.weight);
    expect(unmatched).toEqual(['unknownword']);
  });

  it('weighs a word split into parts as one word, its rarest part, shared among the parts', () => {
    const m = model();
    const weather = m.graph.indexByName.get('weather_forecast')!;
    // An identifier the request passes: four tokens nothing has seen.
    const split = tokenizeByWord('weather for station "Xq7ZpK9w"');
    expect(split).toEqual([['weather'], ['station'], ['xq7', 'zp', 'k9w', 'xq7zpk9w']]);
    const words = queryWords(m.text, split);
    const byWord = new Map(words.map((w) => [w.word, w.weight]));
    const ceiling = byWord.get('xq7')!;
    // Every part unknown: each a quarter of one unknown word.
    for (const part of ['zp', 'k9w', 'xq7zpk9w']) expect(byWord.get(part)).toBeCloseTo(ceiling);
    const unknown = queryWords(m.text, [['unknownword']])[0]!.weight;
    expect(4 * ceiling).toBeCloseTo(unknown);
    // So the identifier counts as one word nothing knows, not four.
    const asOne = coverage(m.text, words, [weather], 1).best;
    const asFour = coverage(m.text, queryWords(m.text, split.flat().map((token) => [token])), [weather], 1).best;
    expect(asOne).toBeGreaterThan(asFour);
    const total = words.reduce((sum, w) => sum + w.weight, 0);
    expect(total).toBeCloseTo(byWord.get('weather')! + byWord.get('station')! + unknown);
    const explained = words.filter((w) => explains(m.text, w, weather)).reduce((sum, w) => sum + w.weight, 0);
    expect(explained).toBeGreaterThan(0);
    expect(asOne).toBeCloseTo(explained / total);
    // A token already counted in an earlier word is not counted again.
    expect(queryWords(m.text, [['weather'], ['weather', 'unknownword']]).map((w) => w.word)).toEqual(['weather', 'unknownword']);
  });
});

describe('searchTools, seed profile (spec 003 section 1 as written)', () => {
  const hotels = new Map(
    [
      tool('search_hotels', 'Search hotels in a city'),
      tool('book_hotel', 'Book a hotel room'),
      tool('hotel_reviews', 'Read the reviews of a hotel'),
      tool('cancel_booking', 'Cancel a hotel booking'),
    ].map((t) => [t.name, t]),
  );
  function hotelModel() {
    const g = new TransitionGraph();
    for (const name of hotels.keys()) g.addTool(name);
    g.ingest(trace(['search_hotels', 'book_hotel'], { intent: 'book a room' }));
    g.ingest(trace(['search_hotels', 'book_hotel'], { intent: 'book a room in Rome' }));
    g.ingest(trace(['hotel_reviews', 'book_hotel'], { intent: 'is it any good' }));
    // A failed run adds failure evidence only: search_hotels -> cancel_booking is no learned edge.
    g.ingest(trace(['search_hotels', 'cancel_booking'], { intent: 'cancel it', success: false }));
    return buildModel(g, hotels, PRIOR_WEIGHTS, { embedding: hashedTextEmbedding() });
  }

  it('without context ranks as the default does, each score relative to the best', () => {
    const m = hotelModel();
    const fitted = searchTools(m, { query: 'hotel', k: 4 });
    const seed = searchTools(m, { query: 'hotel', k: 4, profile: 'seed' });
    expect(seed.profile).toBe('seed');
    expect(fitted.profile).toBe('default');
    expect(seed.items.map((i) => i.tool)).toEqual(fitted.items.map((i) => i.tool));
    expect(seed.items[0]!.score).toBe(1);
    for (let i = 1; i < 4; i++) expect(seed.items[i]!.score).toBeCloseTo(fitted.items[i]!.score / fitted.items[0]!.score, 12);
  });

  it('with context mixes alpha * semantic + (1 - alpha) * graph: 1 after a learned edge, else Adamic-Adar / 2', () => {
    const m = hotelModel();
    // 2 learned edges among 4 tools: density 2 / 12, alpha = max(0.5, 1 - 2 * density) = 2 / 3.
    expect(m.graph.alpha).toBeCloseTo(2 / 3, 12);
    const semantic = scores(searchTools(m, { query: 'hotel', k: 4, profile: 'seed' }).items);
    const seed = searchTools(m, { query: 'hotel', context: ['search_hotels'], k: 4, profile: 'seed' });
    const got = scores(seed.items);
    const a = 2 / 3;
    // book_hotel: search_hotels -> book_hotel was learned. hotel_reviews shares book_hotel (degree
    // 2) with search_hotels: AA = 1 / ln 2. cancel_booking: only a failure, no edge, no neighbour.
    expect(got.get('book_hotel')).toBeCloseTo(a * semantic.get('book_hotel')! + (1 - a) * 1, 12);
    expect(got.get('hotel_reviews')).toBeCloseTo(a * semantic.get('hotel_reviews')! + (1 - a) * (1 / Math.log(2) / 2), 12);
    expect(got.get('cancel_booking')).toBeCloseTo(a * semantic.get('cancel_booking')!, 12);
    expect(got.get('search_hotels')).toBeCloseTo(a * semantic.get('search_hotels')!, 12);
    expect(seed.items.map((i) => i.score)).toEqual([...seed.items.map((i) => i.score)].sort((x, y) => y - x));
  });

  it('is refused for an unknown profile at the service boundary', () => {
    expect(() => parseSearchRequest({ query: 'hotel', profile: 'spec' })).toThrow(/profile/);
  });
});

describe('searchTools, seed profile on random graphs', () => {
  it('scores in [0, 1], the best context-free tool 1, and equals the formula for every returned tool', () => {
    const rng = createRng(7);
    const words = ['hotel', 'flight', 'book', 'search', 'city', 'price', 'weather', 'cancel', 'review', 'map'];
    const pick = () => words[Math.floor(rng() * words.length)]!;
    let graphMoved = 0;
    for (let round = 0; round < 20; round++) {
      const n = 5 + Math.floor(rng() * 20);
      const tools = new Map(Array.from({ length: n }, (_, i) => [`t${i}`, tool(`t${i}`, `${pick()} ${pick()} ${pick()}`)]));
      const g = new TransitionGraph();
      for (const name of tools.keys()) g.addTool(name);
      for (let t = 0; t < 3 * n; t++) {
        const steps = Array.from({ length: 2 + Math.floor(rng() * 3) }, () => `t${Math.floor(rng() * n)}`);
        g.ingest(trace(steps, { intent: `${pick()} ${pick()}`, success: rng() < 0.8 }));
      }
      const m = buildModel(g, tools, PRIOR_WEIGHTS, { embedding: hashedTextEmbedding() });
      const query = `${pick()} ${pick()}`;
      const context = [`t${Math.floor(rng() * n)}`];
      const alone = searchTools(m, { query, k: n, profile: 'seed' });
      expect(alone.items[0]!.score).toBe(1);
      const semantic = scores(alone.items);
      const mixed = searchTools(m, { query, context, k: n, profile: 'seed' });
      const a = m.graph.alpha;
      expect(a).toBeGreaterThanOrEqual(0.5);
      expect(a).toBeLessThanOrEqual(1);
      for (const item of mixed.items) {
        expect(item.score).toBeGreaterThanOrEqual(0);
        expect(item.score).toBeLessThanOrEqual(1 + 1e-12);
        // What the graph added is (1 - alpha) times a graph score in [0, 1].
        const graphPart = item.score - a * semantic.get(item.tool)!;
        expect(graphPart).toBeGreaterThanOrEqual(-1e-12);
        expect(graphPart).toBeLessThanOrEqual(1 - a + 1e-12);
        if (graphPart > 1e-9) graphMoved++;
      }
    }
    // The context did reach the scores: the check above is not vacuous.
    expect(graphMoved).toBeGreaterThan(20);
  });
});
