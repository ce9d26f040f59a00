/**
 * A small travel domain for session tests: a catalogue of seven tools and traces that make
 * search_flights -> book_flight -> pay and search_hotels -> book_hotel -> pay the learned
 * workflows, with intents in words.
 */
import type { ToolInfo, Trace } from '../../src/schema/types.js';
import { Toolgraph } from '../../src/service/toolgraph.js';

export const TRAVEL_TOOLS: ToolInfo[] = [
  { name: 'search_flights', description: 'Search flights between two cities on a date', params: [] },
  { name: 'book_flight', description: 'Book a seat on a flight found by search', params: [] },
  { name: 'pay', description: 'Pay for an order with a card', params: [] },
  { name: 'search_hotels', description: 'Search hotels in a city for some nights', params: [] },
  { name: 'book_hotel', description: 'Book a hotel room', params: [] },
  { name: 'get_weather', description: 'Weather forecast for a city', params: [] },
  { name: 'send_email', description: 'Send an email message', params: [] },
];

export function travelTraces(): Trace[] {
  const traces: Trace[] = [];
  const add = (n: number, intent: string, tools: string[]): void => {
    for (let i = 0; i < n; i++) {
      traces.push({ id: `${tools.join('-')}-${i}`, intent, domain: 'travel', success: true, timestamp: 1_000 + traces.length, steps: tools.map((tool) => ({ tool, ok: true })) });
    }
  };
  add(15, 'find a flight from Paris to London and book it', ['search_flights', 'book_flight', 'pay']);
  add(15, 'find a hotel in Rome and book a room', ['search_hotels', 'book_hotel', 'pay']);
  add(5, 'check the weather forecast in Rome', ['get_weather']);
  add(5, 'find a flight and a hotel in Rome', ['search_flights', 'search_hotels', 'book_hotel']);
  return traces;
}

/** A Toolgraph that learned the travel traces (prior weights; its model built). */
export function travelToolgraph(): Toolgraph {
  const tg = new Toolgraph({ seed: 1, rebuildDelayMs: 0 });
  tg.setTools(TRAVEL_TOOLS);
  tg.ingestTraces(travelTraces());
  tg.rebuild();
  return tg;
}

export const FLIGHT_INTENT = 'find a flight from Paris to London and book it';
