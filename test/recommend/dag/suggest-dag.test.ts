import { describe, expect, it } from 'vitest';
import { TransitionGraph } from '../../../src/graph/transition-graph.js';
import { feeds, lookupParams, namedFlows, outputIndex, outputKeys, outputWords, producers, toolsFeeding } from '../../../src/recommend/dag/data-flow.js';
import { buildPrecedence, GLOBAL_PRIOR_WEIGHT, probabilityBefore } from '../../../src/recommend/dag/precedence.js';
import { suggestDag, type DagNode } from '../../../src/recommend/dag/suggest-dag.js';
import { buildModel, EXPERT_WEIGHTS, type FittedWeights } from '../../../src/recommend/model.js';
import { scoreAllTools } from '../../../src/recommend/score-all.js';
import { searchTools } from '../../../src/recommend/search-tools.js';
import { Toolgraph } from '../../../src/service/toolgraph.js';
import type { ToolInfo } from '../../../src/schema/types.js';
import { expectCode } from '../../helpers/expect-code.js';
import { trace } from '../../helpers/traces.js';

/** A node's tool, or its capability's tools joined: what the tests compare. */
const label = (n: DagNode): string => (n.kind === 'tool' ? n.tool : `[${n.tools.join(' ')}]`);

const param = (name: string) => ({ name, type: 'string', description: '', required: true });

const catalog: ToolInfo[] = [
  { name: 'search_airport', description: 'Find an airport by city name', params: [param('query')], outputs: ['skyId', 'entityId'] },
  { name: 'search_flights', description: 'Search flights between airports', params: [param('originSkyId'), param('destinationSkyId')], outputs: ['flightId'] },
  { name: 'book_flight', description: 'Book a flight', params: [param('flightId')], outputs: ['bookingId'] },
  { name: 'get_weather', description: 'Weather forecast for a city', params: [param('city')] },
  { name: 'send_email', description: 'Send an email message', params: [param('to')] },
];

/**
 * The catalogue with a booking that takes the flight, not its id: the tests of how many steps a
 * request names, apart from the look-up an identifier needs (tested on its own).
 */
const withoutIds: ToolInfo[] = catalog.map((t) => (t.name === 'book_flight' ? { ...t, params: [param('flight')] } : t));

function flightsModel(): ReturnType<typeof buildModel> {
  const g = new TransitionGraph();
  for (const t of catalog) g.addTool(t.name);
  for (let i = 0; i < 6; i++) {
    g.ingest(trace(['search_airport', 'search_flights', 'book_flight'], { id: `f${i}`, intent: `book a flight from city ${i} to the coast` }));
    g.ingest(trace(['get_weather', 'send_email'], { id: `w${i}`, intent: `email me the weather forecast for city ${i}` }));
  }
  return buildModel(g, new Map(catalog.map((t) => [t.name, t])), EXPERT_WEIGHTS);
}

describe('data flow and precedence', () => {
  it('matches outputs to parameters by name or suffix, ignoring echoed fields and short suffixes', () => {
    expect(feeds(outputKeys(catalog[0]), catalog[1])).toBe(true); // skyId -> originSkyId
    expect(feeds(outputKeys(catalog[1]), catalog[2])).toBe(true); // flightId -> flightId
    expect(feeds(outputKeys(catalog[2]), catalog[1])).toBe(false);
    const echo: ToolInfo = { name: 'e', description: '', params: [param('country')], outputs: ['country'] };
    expect(outputKeys(echo)).toEqual([]);
    const short: ToolInfo = { name: 's', description: '', params: [], outputs: ['id'] };
    expect(feeds(outputKeys(short), { name: 't', description: '', params: [param('geoId')] })).toBe(false);
  });

  it('feeds each parameter from the earliest step offering it that feeds no other parameter yet', () => {
    const airport = outputKeys(catalog[0]); // skyId, entityId
    // Two airport lookups: one feeds the origin, the other the destination.
    expect(producers([airport, airport], catalog[1])).toEqual([0, 1]);
    // A second step offering what the first already gave is not a producer of it.
    const search: ToolInfo = { name: 'search', description: '', params: [param('q')], outputs: ['productId', 'title'] };
    const details: ToolInfo = { name: 'details', description: '', params: [param('q')], outputs: ['productId', 'price'] };
    const offers: ToolInfo = { name: 'offers', description: '', params: [param('productId')] };
    expect(producers([outputKeys(search), outputKeys(details)], offers)).toEqual([0]);
    expect(producers([outputKeys(details)], offers)).toEqual([0]);
    expect(producers([outputKeys(catalog[3])], offers)).toEqual([]); // nothing it takes
    expect(producers([airport], undefined)).toEqual([]);
  });

  it('counts only the parameters a tool needs: its required ones, or all where it marks none', () => {
    const optional = (name: string) => ({ ...param(name), required: false });
    const booking: ToolInfo = { name: 'book_house', description: '', params: [param('houseId')], outputs: ['bookingId', 'rating'] };
    const search: ToolInfo = { name: 'search_house', description: '', params: [param('where'), optional('rating')], outputs: ['houseId'] };
    // A rating the search may filter by is no reason to book first; the house id the booking needs is.
    expect(feeds(outputKeys(booking), search)).toBe(false);
    expect(producers([outputKeys(booking)], search)).toEqual([]);
    expect(feeds(outputKeys(search), booking)).toBe(true);
    // A tool that marks no parameter as required (a catalogue that does not say) needs them all.
    const unmarked: ToolInfo = { ...search, params: [optional('where'), optional('rating')] };
    expect(feeds(outputKeys(booking), unmarked)).toBe(true);
    expect(producers([outputKeys(booking)], unmarked)).toEqual([0]);
  });

  it("reads the flow a request states: a clause naming another clause's tool's output, every word of it", () => {
    const profit: ToolInfo = { name: 'calculate_profit', description: '', params: [param('revenue'), param('expenses')], outputs: ['profit'] };
    const translate: ToolInfo = { name: 'translate_text', description: '', params: [param('text')], outputs: ['translated_text', 'text'] };
    const convert: ToolInfo = { name: 'convert_currency', description: '', params: [param('amount')], outputs: ['converted_amount'] };
    // An output the tool also takes is an echo, as for outputKeys; each output is its words.
    expect(outputWords(translate)).toEqual([['translat', 'text']]);
    expect(outputWords(undefined)).toEqual([]);
    const outputs = [outputWords(profit), outputWords(translate), outputWords(convert), []];
    const clauses = [['calcul', 'profit'], ['translat', 'greet'], ['convert', 'profit', 'eur'], ['send', 'translat', 'messag']];
    // convert's clause (2) names `profit`; the last clause names `translated` but not `text`.
    expect(namedFlows(outputs, [0, 1, 2, 3], clauses)).toEqual([[0, 2]]);
    const sendText = [...clauses.slice(0, 3), ['send', 'translat', 'text']];
    expect(namedFlows(outputs, [0, 1, 2, 3], sendText)).toEqual([[0, 2], [1, 3]]);
    // Not within one clause (the producer's own words), nor for a tool in no clause.
    expect(namedFlows(outputs, [2, 1, 2, 3], clauses)).toEqual([]);
    expect(namedFlows(outputs, [0, 1, -1, 3], clauses)).toEqual([]);
  });

  it('knows the identifiers a tool needs and which tools return them', () => {
    const optional = (name: string) => ({ ...param(name), required: false });
    const flights: ToolInfo = { name: 'f', description: '', params: [param('originSkyId'), param('geo_id'), param('isPaid'), param('ID'), optional('userId')] };
    // The last word of the name is `id`; `isPaid` only ends in the letters; an optional id is not needed.
    expect(lookupParams(flights)).toEqual(['originskyid', 'geoid', 'id']);
    const index = outputIndex([outputKeys(catalog[0]), outputKeys(catalog[1]), [], ['geoid', 'id']]);
    expect(toolsFeeding(index, 'originskyid')).toEqual([0]); // skyId, a suffix of four letters or more
    expect(toolsFeeding(index, 'geoid')).toEqual([3]);
    expect(toolsFeeding(index, 'flightid')).toEqual([1]); // `id` alone is too short a suffix
    expect(toolsFeeding(index, 'id')).toEqual([3]);
    expect(toolsFeeding(index, 'hotelid')).toEqual([]);
  });

  it('matches by named type too: exactly, never a generic type, and not an echoed one', () => {
    const typed = (name: string, type: string, required = true) => ({ name, type, description: '', required });
    const airports: ToolInfo = { name: 'find_airport', description: '', params: [param('city')], outputTypes: ['Airport'] };
    const flights: ToolInfo = { name: 'search_flights', description: '', params: [typed('origin', 'Airport'), typed('destination', 'Airport'), typed('date', 'string')] };
    // Names differ (`origin` takes no `airport` output), the type says it.
    expect(outputKeys(airports)).toEqual([':airport']);
    expect(feeds(outputKeys(airports), flights)).toBe(true);
    expect(feeds(outputKeys(flights), airports)).toBe(false);
    // Two look-ups: one feeds the origin, the other the destination, as with names.
    expect(producers([outputKeys(airports), outputKeys(airports)], flights)).toEqual([0, 1]);
    // A generic type says nothing of where a value comes from.
    const strings: ToolInfo = { name: 'echo_text', description: '', params: [], outputTypes: ['string', 'String', 'object', 'Date (yyyy-mm-dd)'] };
    expect(outputKeys(strings)).toEqual([]);
    expect(feeds(outputKeys(strings), { name: 't', description: '', params: [typed('q', 'string')] })).toBe(false);
    // Types match exactly: an `Airport` output feeds no parameter named or typed `port`, and a
    // name output never feeds by a parameter's type.
    expect(feeds(outputKeys(airports), { name: 't', description: '', params: [typed('port', 'Port'), param('airport')] })).toBe(false);
    expect(feeds(['airport'], { name: 't', description: '', params: [typed('origin', 'Airport')] })).toBe(false);
    // A type the tool also takes is an echo: changing a booking does not make one.
    const change: ToolInfo = { name: 'change_booking', description: '', params: [typed('booking', 'Booking')], outputTypes: ['Booking'] };
    expect(outputKeys(change)).toEqual([]);
    // Only what the tool needs: an optional typed parameter orders nothing.
    expect(feeds(outputKeys(airports), { name: 't', description: '', params: [param('q'), typed('near', 'Airport', false)] })).toBe(false);
    // What only another tool can supply: the type's key, found exactly.
    expect(lookupParams(flights)).toEqual([':airport', ':airport']);
    const index = outputIndex([outputKeys(airports), ['airport', 'port'], outputKeys(catalog[0])]);
    expect(toolsFeeding(index, ':airport')).toEqual([0]);
    expect(toolsFeeding(index, ':port')).toEqual([]);
  });

  it('learns which tool comes first with a Laplace prior', () => {
    const index = buildPrecedence(3, Int32Array.from([0, 3, 6]), Int32Array.from([0, 1, 2, 0, 2, 1]));
    expect(probabilityBefore(index, 0, 1)).toBeCloseTo(3 / 4);
    expect(probabilityBefore(index, 1, 2)).toBeCloseTo(1 / 2);
    expect(probabilityBefore(index, 2, 0)).toBeCloseTo(1 / 4);
  });

  it("lets the similar past tasks' order decide a pair, with the global order as a weak prior", () => {
    const index = buildPrecedence(3, Int32Array.from([0, 3, 6]), Int32Array.from([0, 1, 2, 0, 2, 1]));
    const none = { counts: new Map<number, number>(), n: 3 };
    expect(probabilityBefore(index, 0, 1, none)).toBeCloseTo(3 / 4); // no neighbour saw the pair
    const near = { counts: new Map([[2 * 3 + 1, 0.5]]), n: 3 }; // 2 before 1, kNN weight 0.5
    const prior = GLOBAL_PRIOR_WEIGHT;
    expect(probabilityBefore(index, 2, 1, near)).toBeCloseTo((0.5 + prior / 2) / (0.5 + prior));
    expect(probabilityBefore(index, 2, 1, near)).toBeGreaterThan(0.8);
    expect(probabilityBefore(index, 1, 2, near)).toBeCloseTo(1 - probabilityBefore(index, 2, 1, near));
  });
});

describe('suggestDag', () => {
  it('suggests the learned workflow in order, with data-flow edges, layers and confidences', () => {
    const dag = suggestDag(flightsModel(), { intent: 'book a flight from city 9 to the coast' });
    expect(dag.nodes.map((n) => label(n))).toEqual(['search_airport', 'search_flights', 'book_flight']);
    expect(dag.edges).toEqual([
      { from: 'n1', to: 'n2', confidence: 0.95, source: 'data-flow' },
      { from: 'n2', to: 'n3', confidence: 0.95, source: 'data-flow' },
    ]);
    expect(dag.layers).toEqual([['n1'], ['n2'], ['n3']]);
    for (const n of dag.nodes) expect(n.confidence).toBeGreaterThan(0);
    expect(dag.confidence).toBeGreaterThan(0);
    expect(dag.confidence).toBeLessThanOrEqual(1);
  });

  it('links steps without declared outputs by their learned order, with hop-correct confidence', () => {
    const dag = suggestDag(flightsModel(), { intent: 'email me the weather forecast for city 3' });
    expect(dag.nodes.map((n) => label(n))).toEqual(['get_weather', 'send_email']);
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'sequence' }]);
  });

  it('lets a step less likely in the workflow than out of it carry no chain: the step after it waits for the one before', () => {
    const reports: ToolInfo[] = [
      { name: 'fetch_report', description: 'Fetch a sales report', params: [param('period')] },
      { name: 'summarize_text', description: 'Summarize a text', params: [param('text')] },
      { name: 'send_email', description: 'Send an email message', params: [param('to')] },
    ];
    // A fitted calibration (a raw confidence up to 0.5 means 0.3, above it 0.9), or none.
    const calibrated = { ...EXPERT_WEIGHTS, stepCalibration: { upper: [0.5, 1], value: [0.3, 0.9] } };
    const model = (summarized: number, weights: FittedWeights = calibrated): ReturnType<typeof buildModel> => {
      const g = new TransitionGraph();
      for (const t of reports) g.addTool(t.name);
      for (let i = 0; i < 12; i++) {
        const tools = i < summarized ? ['fetch_report', 'summarize_text', 'send_email'] : ['fetch_report', 'send_email'];
        g.ingest(trace(tools, { id: `r${i}`, intent: `the sales report of region ${i} by email` }));
      }
      return buildModel(g, new Map(reports.map((t) => [t.name, t])), weights);
    };
    const intent = 'the sales report of region 99 by email';
    const pairs = (dag: ReturnType<typeof suggestDag>) => dag.edges.map((e) => [e.from, e.to]);
    // 7 of 12 similar tasks summarised: three steps, the summary in doubt (below 1/2).
    const doubtful = suggestDag(model(7), { intent });
    expect(doubtful.nodes.map((n) => label(n))).toEqual(['fetch_report', 'summarize_text', 'send_email']);
    expect(doubtful.nodes[1]!.confidence).toBeLessThan(0.5);
    expect(pairs(doubtful)).toEqual([
      ['n1', 'n2'],
      ['n1', 'n3'],
    ]);
    expect(doubtful.layers).toEqual([['n1'], ['n2', 'n3']]);
    // Every task summarised: the summary carries the chain.
    const sure = suggestDag(model(12), { intent });
    expect(sure.nodes[1]!.confidence).toBeGreaterThanOrEqual(0.5);
    expect(pairs(sure)).toEqual([
      ['n1', 'n2'],
      ['n2', 'n3'],
    ]);
    // Uncalibrated, the confidences are no probabilities: the chain stays as the steps run.
    const raw = suggestDag(model(7, EXPERT_WEIGHTS), { intent });
    expect(raw.nodes[1]!.confidence).toBeLessThan(0.5);
    expect(pairs(raw)).toEqual([
      ['n1', 'n2'],
      ['n2', 'n3'],
    ]);
  });

  it("takes a step's input from the step whose output its clause names, runs that step first, and leaves the steps it feeds from none on their own", () => {
    const tools: ToolInfo[] = [
      { name: 'calculate_profit', description: 'Calculate the profit from revenue and expenses', params: [param('revenue'), param('expenses')], outputs: ['profit'] },
      { name: 'get_weather', description: 'Weather forecast for a city', params: [param('city')], outputs: ['forecast'] },
      { name: 'convert_currency', description: 'Convert an amount between currencies', params: [param('amount'), param('to')], outputs: ['converted_amount'] },
    ];
    const g = new TransitionGraph();
    for (const t of tools) g.addTool(t.name);
    // Recorded in this run order, and in the reverse: the traces alone do not say which comes first.
    for (let i = 0; i < 4; i++) {
      g.ingest(trace(['calculate_profit', 'get_weather', 'convert_currency'], { id: `p${i}`, intent: `profit, weather and currency ${i}` }));
      g.ingest(trace(['convert_currency', 'get_weather', 'calculate_profit'], { id: `q${i}`, intent: `profit, weather and currency ${i}` }));
    }
    const model = buildModel(g, new Map(tools.map((t) => [t.name, t])));
    // No declared name links them (`profit` is not `amount`): the request does.
    const dag = suggestDag(model, { intent: 'calculate the profit from revenue 7000 and expenses 5000, get the weather forecast in Paris, and convert the profit to the EUR currency' });
    expect(dag.nodes.map(label)).toEqual(['calculate_profit', 'get_weather', 'convert_currency']);
    // The weather, which the request feeds from no step, is a task of its own: it no longer
    // waits for the profit through their learned order.
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n3', confidence: 0.95, source: 'data-flow' }]);
    expect(dag.layers).toEqual([['n1', 'n2'], ['n3']]);
    // A request that states no flow keeps the learned order's dependencies.
    const unstated = suggestDag(model, { intent: 'calculate the profit from revenue 7000 and expenses 5000, get the weather forecast in Paris, and convert 100 USD to the EUR currency' });
    expect(unstated.nodes.map(label)).toEqual(['calculate_profit', 'get_weather', 'convert_currency']);
    expect(unstated.edges.map((e) => [e.from, e.to, e.source])).toEqual([
      ['n1', 'n2', 'sequence'],
      ['n2', 'n3', 'sequence'],
    ]);
    // Named first, the consumer still waits for the step whose output it takes.
    const backwards = suggestDag(model, { intent: 'convert the profit to the EUR currency, where the profit is calculated from revenue 7000 and expenses 5000' });
    expect(backwards.nodes.map(label)).toEqual(['calculate_profit', 'convert_currency']);
    expect(backwards.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'data-flow' }]);
  });

  it('adds the look-up of an identifier a chosen step needs, unless a step already called returns it', () => {
    const tools: ToolInfo[] = [
      { name: 'artist_id_by_name', description: 'Find an artist id from a name', params: [param('name')], outputs: ['artistId'] },
      { name: 'list_albums', description: 'List the albums and singles of an artist', params: [param('artistId')], outputs: ['albums'] },
      { name: 'get_weather', description: 'Weather forecast for a city', params: [param('city')], outputs: ['forecast'] },
    ];
    const g = new TransitionGraph();
    for (const t of tools) g.addTool(t.name);
    // The traces called the album list alone (the caller had the id) and the weather alone.
    for (let i = 0; i < 4; i++) {
      g.ingest(trace(['list_albums'], { id: `a${i}`, intent: `list the albums of artist ${i}` }));
      g.ingest(trace(['get_weather'], { id: `w${i}`, intent: `weather forecast in city ${i}` }));
    }
    const model = buildModel(g, new Map(tools.map((t) => [t.name, t])));
    const dag = suggestDag(model, { intent: 'list the albums of the Weeknd' });
    expect(dag.nodes.map(label)).toEqual(['artist_id_by_name', 'list_albums']);
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'data-flow' }]);
    // As certain as the step that needs it.
    expect(dag.nodes[0]!.confidence).toBe(dag.nodes[1]!.confidence);
    // The id in hand already: the look-up was called.
    expect(suggestDag(model, { intent: 'list the albums of the Weeknd', context: ['artist_id_by_name'] }).nodes.map(label)).toEqual(['list_albums']);
    // A step that needs no identifier adds nothing.
    expect(suggestDag(model, { intent: 'weather forecast in Paris' }).nodes.map(label)).toEqual(['get_weather']);
  });

  it('adds the look-up of a named type a chosen step needs, with its data-flow edge', () => {
    const typed = (name: string, type: string) => ({ name, type, description: '', required: true });
    const tools: ToolInfo[] = [
      { name: 'find_airport', description: 'Find an airport by city name', params: [param('city')], outputTypes: ['Airport'] },
      { name: 'search_flights', description: 'Search flights between two airports on a date', params: [typed('origin', 'Airport'), typed('day', 'string')] },
      { name: 'get_weather', description: 'Weather forecast for a city', params: [param('city')] },
    ];
    const g = new TransitionGraph();
    for (const t of tools) g.addTool(t.name);
    for (let i = 0; i < 4; i++) {
      g.ingest(trace(['search_flights'], { id: `f${i}`, intent: `search flights on day ${i}` }));
      g.ingest(trace(['get_weather'], { id: `w${i}`, intent: `weather forecast in city ${i}` }));
    }
    const model = buildModel(g, new Map(tools.map((t) => [t.name, t])));
    const dag = suggestDag(model, { intent: 'search flights from Oslo on Friday' });
    expect(dag.nodes.map(label)).toEqual(['find_airport', 'search_flights']);
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'data-flow' }]);
    // The airport in hand already: the look-up was called.
    expect(suggestDag(model, { intent: 'search flights from Oslo on Friday', context: ['find_airport'] }).nodes.map(label)).toEqual(['search_flights']);
  });

  it('orders two tools recorded both ways as the most similar past tasks did', () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    // Globally send_email comes first more often; for weather reports it comes last.
    for (let i = 0; i < 8; i++) g.ingest(trace(['send_email', 'get_weather'], { id: `a${i}`, intent: `tell my team by email ${i} then check the weather` }));
    for (let i = 0; i < 3; i++) g.ingest(trace(['get_weather', 'send_email'], { id: `b${i}`, intent: `forecast report mailed tonight ${i}` }));
    const model = buildModel(g, new Map(catalog.map((t) => [t.name, t])), EXPERT_WEIGHTS);
    expect(suggestDag(model, { intent: 'forecast report mailed tonight' }).nodes.map(label)).toEqual(['get_weather', 'send_email']);
    expect(suggestDag(model, { intent: 'tell my team by email then check the weather' }).nodes.map(label)).toEqual(['send_email', 'get_weather']);
  });

  it("orders two tools as the request's clauses name them, as far as recorded requests did so", () => {
    const repairs: ToolInfo[] = [
      { name: 'repair_cancellation', description: 'Cancel a washer repair', params: [param('ticket')] },
      { name: 'repair_rescheduling', description: 'Move a washer repair', params: [param('ticket')] },
      { name: 'book_hotel', description: 'Book a hotel room', params: [param('city')] },
      { name: 'pay_invoice', description: 'Pay an invoice', params: [param('invoice')] },
    ];
    // The two repair tools in both orders, under requests that name neither: no order to learn.
    // The requests of the other pair name its tools in their run order, or against it.
    const modelWith = (otherIntent: (i: number) => string) => {
      const g = new TransitionGraph();
      for (const t of repairs) g.addTool(t.name);
      for (let i = 0; i < 4; i++) {
        g.ingest(trace(['repair_cancellation', 'repair_rescheduling'], { id: `a${i}`, intent: `sort out my washer ${i}` }));
        g.ingest(trace(['repair_rescheduling', 'repair_cancellation'], { id: `b${i}`, intent: `sort out my washer ${i}` }));
      }
      for (let i = 0; i < 10; i++) g.ingest(trace(['book_hotel', 'pay_invoice'], { id: `h${i}`, intent: otherIntent(i) }));
      return buildModel(g, new Map(repairs.map((t) => [t.name, t])));
    };
    const inOrder = modelWith((i) => `book a hotel in town ${i}, then pay the invoice`);
    const reschedulingFirst = 'sort out my washer: reschedule the visit, and cancel the old one';
    const cancellationFirst = 'sort out my washer: cancel the old visit, and reschedule';
    expect(suggestDag(inOrder, { intent: reschedulingFirst }).nodes.map(label)).toEqual(['repair_rescheduling', 'repair_cancellation']);
    expect(suggestDag(inOrder, { intent: cancellationFirst }).nodes.map(label)).toEqual(['repair_cancellation', 'repair_rescheduling']);
    // Where recorded requests named their steps backwards, the clauses count backwards too.
    const backwards = modelWith((i) => `pay the invoice ${i} after you book a hotel`);
    expect(suggestDag(backwards, { intent: reschedulingFirst }).nodes.map(label)).toEqual(['repair_cancellation', 'repair_rescheduling']);
  });

  it('lets the recorded order decide between two tools that declare each other as inputs', () => {
    const artists: ToolInfo[] = [
      { name: 'artist_overview', description: 'Overview and biography of an artist', params: [param('artistId')], outputs: ['name', 'biography'] },
      { name: 'artist_id_by_name', description: 'Look up an artist id', params: [param('name')], outputs: ['artistId'] },
    ];
    const g = new TransitionGraph();
    for (const t of artists) g.addTool(t.name);
    for (let i = 0; i < 5; i++) g.ingest(trace(['artist_id_by_name', 'artist_overview'], { id: `s${i}`, intent: `artist biography overview ${i}` }));
    const model = buildModel(g, new Map(artists.map((t) => [t.name, t])));
    const scores = new Float64Array(artists.length);
    const intent = 'the biography overview of Eminem';
    scoreAllTools(model, [], intent, 'search', scores);
    expect(scores[0]).toBeGreaterThan(scores[1]!); // the overview is chosen first
    const dag = suggestDag(model, { intent });
    expect(dag.nodes.map(label)).toEqual(['artist_id_by_name', 'artist_overview']);
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'data-flow' }]);
    expect(dag.warnings).toContain('ignored that artist_id_by_name needs artist_overview: they feed each other');
  });

  it('keeps the recorded order where a later tool returns only what an earlier one may take', () => {
    // As in NESTFUL's catalogue: the booking returns the house's rating, which the search takes
    // as an optional filter, and nothing the search returns is a parameter of the booking. Read
    // as a dependency, the rating put the booking first.
    const houses: ToolInfo[] = [
      { name: 'search_house', description: 'Find a house to rent in a city', params: [param('where'), { ...param('rating'), required: false }], outputs: ['where', 'rating', 'address'] },
      { name: 'book_house', description: 'Book the selected house for given dates', params: [param('where'), param('checkIn')], outputs: ['where', 'checkIn', 'rating', 'address'] },
    ];
    const g = new TransitionGraph();
    for (const t of houses) g.addTool(t.name);
    for (let i = 0; i < 5; i++) g.ingest(trace(['search_house', 'book_house'], { id: `h${i}`, intent: `find a house to rent in city ${i} and book it` }));
    const model = buildModel(g, new Map(houses.map((t) => [t.name, t])));
    const dag = suggestDag(model, { intent: 'find a house to rent in Rome for a week and book it' });
    expect(dag.nodes.map(label)).toEqual(['search_house', 'book_house']);
    expect(dag.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'sequence' }]);
  });

  it("takes each clause's own tool when the whole request's ranking would leave it out", () => {
    const hotels: ToolInfo[] = [
      { name: 'search_hotels', description: 'Find hotels in a city', params: [param('city')] },
      { name: 'hotel_reviews', description: 'Read guest reviews of hotels in a city', params: [param('city')] },
      { name: 'book_hotel', description: 'Book a hotel room', params: [param('hotelId')] },
      { name: 'convert_currency', description: 'Convert an amount of money between currencies', params: [param('amount')] },
    ];
    const g = new TransitionGraph();
    for (const t of hotels) g.addTool(t.name);
    for (let i = 0; i < 6; i++) g.ingest(trace(['search_hotels', 'hotel_reviews'], { id: `h${i}`, intent: `find hotels in city ${i} and read what guests say` }));
    for (let i = 0; i < 3; i++) g.ingest(trace(['convert_currency', 'book_hotel'], { id: `c${i}`, intent: `convert the price to euros ${i} and book a room` }));
    const model = buildModel(g, new Map(hotels.map((t) => [t.name, t])), EXPERT_WEIGHTS);
    const intent = 'find hotels in Rome and convert the price to euros';
    // The request as a whole ranks the currency task's partner above the hotel search...
    const scores = new Float64Array(hotels.length);
    scoreAllTools(model, [], intent, 'search', scores);
    const ranked = hotels.map((t, i) => ({ tool: t.name, score: scores[i]! })).sort((a, b) => b.score - a.score).map((r) => r.tool);
    expect(ranked.slice(0, 2)).toEqual(['convert_currency', 'book_hotel']);
    // ...but its first clause on its own wants the hotel search, by a majority.
    const dag = suggestDag(model, { intent });
    expect(dag.nodes.map(label).sort()).toEqual(['convert_currency', 'search_hotels']);
    // Its confidence is the clause's majority, not the share the whole request's ranking gives it.
    const hotel = dag.nodes.find((n) => label(n) === 'search_hotels')!;
    const clause = new Float64Array(hotels.length);
    scoreAllTools(model, [], 'find hotels in Rome', 'search', clause);
    const top = Math.max(...clause);
    const share = Math.exp(clause[model.graph.indexByName.get('search_hotels')!]! - top) / clause.reduce((sum, x) => sum + Math.exp(x - top), 0);
    expect(share).toBeGreaterThanOrEqual(0.5);
    expect(hotel.confidence).toBeGreaterThanOrEqual(share - 1e-12);
    // No trace leads from one to the other: two branches, not a dependency.
    expect(dag.edges).toEqual([]);
    expect(dag.layers).toEqual([['n1', 'n2']]);
    // One clause: the ranking of the whole request alone, as before.
    expect(suggestDag(model, { intent: 'convert the price to euros', maxNodes: 2 }).nodes.map(label).sort()).toEqual(['book_hotel', 'convert_currency']);
  });

  it("takes a step for each clause that picks a tool of its own, beyond the similar tasks' length", () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (let i = 0; i < 8; i++) g.ingest(trace(['get_weather', 'send_email'], { id: `w${i}`, intent: `weather forecast report by email ${i}` }));
    for (let i = 0; i < 2; i++) g.ingest(trace(['book_flight', 'get_weather'], { id: `b${i}`, intent: `book flight ${i}` }));
    const model = buildModel(g, new Map(withoutIds.map((t) => [t.name, t])));
    // Two clauses: the similar tasks' two steps.
    expect(suggestDag(model, { intent: 'the weather forecast, and send it by email' }).nodes.map(label)).toEqual(['get_weather', 'send_email']);
    // Three clauses, three tools of their own: three steps.
    const three = 'the weather forecast, then send it by email, and book a flight';
    expect(suggestDag(model, { intent: three }).nodes.map(label).sort()).toEqual(['book_flight', 'get_weather', 'send_email']);
    expect(suggestDag(model, { intent: three, maxNodes: 2 }).nodes).toHaveLength(2);
  });

  it("takes only the clauses' own tools when every clause picks one, whatever the similar tasks' length", () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (let i = 0; i < 6; i++) {
      g.ingest(trace(['search_airport', 'search_flights', 'book_flight'], { id: `f${i}`, intent: `find the airport of city ${i}, then book a flight` }));
    }
    const model = buildModel(g, new Map(withoutIds.map((t) => [t.name, t])));
    // The similar past tasks took three steps; the request names two, one per clause.
    const named = suggestDag(model, { intent: 'find the airport of Rome by city name, then book a flight' });
    expect(named.nodes.map(label)).toEqual(['search_airport', 'book_flight']);
    // A clause that picks no tool of its own leaves the similar tasks' length in charge.
    const vague = suggestDag(model, { intent: 'find the airport of Rome by city name, then the rest as usual' });
    expect(vague.nodes).toHaveLength(3);
  });

  it('adds to the steps two clauses name only those that similar requests took for granted', () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (let i = 0; i < 6; i++) {
      // Requests that name each of their three steps.
      g.ingest(trace(['get_weather', 'send_email', 'book_flight'], { id: `w${i}`, intent: `get the weather forecast for city ${i}, then send it by email, then book a flight` }));
      // Requests that name two steps and take the flight search for granted.
      g.ingest(trace(['search_airport', 'search_flights', 'book_flight'], { id: `f${i}`, intent: `find the airport of city ${i}, then book a flight` }));
    }
    const model = buildModel(g, new Map(catalog.map((t) => [t.name, t])));
    // Three clauses, one of them a detail that picks no tool: the two named steps, and no third,
    // though the similar tasks took three (the similar tasks named all three).
    const weather = suggestDag(model, { intent: 'get the weather forecast for Rome, for two adults, then send it by email' });
    expect(weather.nodes.map(label)).toEqual(['get_weather', 'send_email']);
    // The similar tasks named two of their three steps: the third joins the two named here.
    const flight = suggestDag(model, { intent: 'find the airport of Rome by city name, for two adults, then book a flight' });
    expect(flight.nodes.map(label)).toEqual(['search_airport', 'search_flights', 'book_flight']);
  });

  it('keeps every named step when a named tool typically repeats', () => {
    const g = new TransitionGraph();
    for (const t of catalog) g.addTool(t.name);
    for (let i = 0; i < 6; i++) {
      // Both airports are looked up: the airport search runs twice in every similar task.
      g.ingest(trace(['search_airport', 'search_airport', 'search_flights', 'book_flight'], { id: `f${i}`, intent: `find the airport of city ${i}, then book a flight` }));
    }
    const model = buildModel(g, new Map(withoutIds.map((t) => [t.name, t])));
    const dag = suggestDag(model, { intent: 'find the airport of Rome by city name, then book a flight', expandCapabilities: true });
    expect(dag.nodes.map(label).sort()).toEqual(['book_flight', 'search_airport', 'search_airport']);
  });

  it('does not suggest what the context already did, and respects maxNodes', () => {
    const model = flightsModel();
    const rest = suggestDag(model, { intent: 'book a flight from city 9 to the coast', context: ['search_airport'] });
    expect(rest.nodes.map((n) => label(n))).toEqual(['search_flights', 'book_flight']);
    expect(suggestDag(model, { intent: 'book a flight from city 9 to the coast', maxNodes: 1 }).nodes).toHaveLength(1);
    const unknown = suggestDag(model, { intent: 'book a flight', context: ['__proto__'] });
    expect(unknown.warnings[0]).toContain('unknown context tool "__proto__"');
  });

  it('says reject or warn when confidence is below the thresholds', () => {
    const model = flightsModel();
    const strict = suggestDag(model, { intent: 'book a flight from city 9 to the coast', thresholds: { reject: 0.999, warn: 0.999 } });
    expect(strict.status).toBe('reject');
    expect(strict.warnings.some((w) => w.includes('reject threshold'))).toBe(true);
    const lax = suggestDag(model, { intent: 'book a flight from city 9 to the coast', thresholds: { reject: 0, warn: 0 } });
    expect(lax.status).toBe('ok');
  });

  it('says no-match, and reject, for an intent nothing fits, as search says it, whatever the thresholds', () => {
    const model = flightsModel();
    const lax = { reject: 0, warn: 0 };
    const intent = 'quantum chromodynamics on a lattice';
    const search = searchTools(model, { query: intent });
    expect(search.kind).toBe('no-match');
    const none = suggestDag(model, { intent, thresholds: lax });
    expect(none.kind).toBe('no-match');
    expect(none.status).toBe('reject');
    expect(none.warnings).toContain(search.hint);
    // No workflow of the nearest tools: search lists them, for review.
    expect(search.items.length).toBeGreaterThan(0);
    expect([none.nodes, none.edges, none.layers, none.confidence]).toEqual([[], [], [], 0]);
    const fits = suggestDag(model, { intent: 'book a flight from city 9 to the coast', thresholds: lax });
    expect(fits.kind).toBe('workflow');
    expect(fits.status).toBe('ok');
    const empty = suggestDag(model, { intent: '', thresholds: lax });
    expect([empty.kind, empty.nodes.length]).toEqual(['no-match', 0]);
  });

  it('validates requests at the facade with stable codes', () => {
    const tg = new Toolgraph();
    tg.setTools(catalog);
    // @ts-expect-error the intent is required
    expectCode(() => tg.suggestDag({}), 'INVALID_INPUT', 'intent');
    expectCode(() => tg.suggestDag({ intent: 'x', maxNodes: 0 }), 'INVALID_INPUT', 'maxNodes');
    expectCode(() => tg.suggestDag({ intent: 'x', thresholds: { reject: 0.9, warn: 0.5 } }), 'INVALID_INPUT', 'thresholds');
    // @ts-expect-error an unknown field
    expectCode(() => tg.suggestDag({ intent: 'x', extra: 1 }), 'INVALID_INPUT');
    const cold = tg.suggestDag({ intent: 'weather forecast for Paris' });
    expect((cold.nodes[0] && label(cold.nodes[0]))).toBe('get_weather');
  });
});

describe('suggestDag: a tool called again', () => {
  const p = (name: string) => param(name);
  const tools: ToolInfo[] = [
    { name: 'find_airport', description: 'Find an airport by city name', params: [p('city')] },
    { name: 'search_flights', description: 'Search flights between two airports', params: [p('origin'), p('destination')] },
  ];
  const dagAfter = (order: string[]) => {
    const g = new TransitionGraph();
    for (const t of tools) g.addTool(t.name);
    for (let i = 0; i < 6; i++) g.ingest(trace(order, { id: `t${i}`, intent: `find the airports of city ${i} and city ${i + 1} and search flights between them` }));
    const dag = suggestDag(buildModel(g, new Map(tools.map((t) => [t.name, t]))), { intent: 'find the airports of city 8 and city 9 and search flights between them', expandCapabilities: true });
    return { tools: dag.nodes.map(label), edges: dag.edges.map((e) => [e.from, e.to, e.confidence]) };
  };

  it('depends on its earlier call by the learned path back to itself, hop-correct', () => {
    // A self-transition is one hop: 0.95 (it was 0.50 for any repeat, the empty path's stand-in).
    expect(dagAfter(['find_airport', 'find_airport', 'search_flights'])).toEqual({
      tools: ['find_airport', 'find_airport', 'search_flights'],
      edges: [['n1', 'n2', 0.95], ['n2', 'n3', 0.95]],
    });
    // Back through search_flights: a cycle of two hops, 0.80.
    expect(dagAfter(['find_airport', 'search_flights', 'find_airport'])).toEqual({
      tools: ['find_airport', 'find_airport', 'search_flights'],
      edges: [['n1', 'n2', 0.8], ['n2', 'n3', 0.95]],
    });
  });
});

describe('suggestDag and the feedback loop', () => {
  it('lowers a failing dependency by its reliability factor and warns when it is credibly failing', () => {
    const tg = new Toolgraph();
    tg.setTools(catalog);
    const DAY = 86_400_000;
    for (let i = 0; i < 6; i++) {
      tg.ingest({ id: `w${i}`, intent: `email me the weather forecast for city ${i}`, tools: ['get_weather', 'send_email'], timestamp: DAY });
    }
    const before = tg.suggestDag({ intent: 'email me the weather forecast for city 3', expandCapabilities: true });
    expect(before.edges).toEqual([{ from: 'n1', to: 'n2', confidence: 0.95, source: 'sequence' }]);
    // A month later the pair fails again and again: its posterior mean drops below 1/2.
    for (let i = 0; i < 12; i++) {
      tg.ingest({ id: `f${i}`, tools: ['get_weather', { name: 'send_email', ok: false }], success: false, timestamp: 31 * DAY });
    }
    tg.rebuild(); // queries read the current model; the debounced rebuild has not run yet
    const rel = tg.reliability('get_weather', 'send_email')!;
    expect(rel.excluded).toBe(true);
    expect(rel.factor).toBeLessThan(1);
    const after = tg.suggestDag({ intent: 'email me the weather forecast for city 3', expandCapabilities: true });
    const edge = after.edges.find((e) => e.source === 'sequence');
    expect(edge?.confidence).toBeCloseTo(0.95 * rel.factor, 12);
    expect(edge!.confidence).toBeLessThan(before.edges[0]!.confidence);
    expect(after.warnings.some((w) => w.includes('get_weather -> send_email has been failing'))).toBe(true);
  });
});

describe('suggestDag and capabilities', () => {
  it('shows a learned capability as one node, and its tools when asked to expand', () => {
    const tg = new Toolgraph();
    tg.setTools(catalog);
    // Three successful runs promote the pair to a learned capability.
    for (let i = 0; i < 3; i++) tg.ingest({ id: `c${i}`, intent: `email me the weather forecast for city ${i}`, tools: ['get_weather', 'send_email'] });
    const collapsed = tg.suggestDag({ intent: 'email me the weather forecast for city 7' });
    expect(collapsed.nodes).toHaveLength(1);
    const node = collapsed.nodes[0]!;
    expect(node.kind).toBe('capability');
    if (node.kind !== 'capability') return;
    expect(node.tools).toEqual(['get_weather', 'send_email']);
    expect(tg.expandCapability(node.capability).tools).toEqual(['get_weather', 'send_email']);
    expect(collapsed.edges).toEqual([]);
    const expanded = tg.suggestDag({ intent: 'email me the weather forecast for city 7', expandCapabilities: true });
    expect(expanded.nodes.map(label)).toEqual(['get_weather', 'send_email']);
    expect(expanded.edges).toHaveLength(1);
  });
});

describe('weightedMedian', () => {
  it('takes the value where the cumulative weight reaches half, and null for nothing', async () => {
    const { weightedMedian } = await import('../../../src/recommend/dag/workflow-length.js');
    expect(weightedMedian([])).toBeNull();
    expect(weightedMedian([{ value: 5, weight: 1 }, { value: 2, weight: 1 }, { value: 9, weight: 1 }])).toBe(5);
    // One heavy neighbour decides, whatever the order given.
    expect(weightedMedian([{ value: 2, weight: 0.1 }, { value: 4, weight: 3 }, { value: 1, weight: 0.2 }])).toBe(4);
  });
});
