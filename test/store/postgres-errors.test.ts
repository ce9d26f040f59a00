import { describe, expect, it } from 'vitest';
import { describeDatabaseUrl, describePostgresError } from '../../src/store/postgres-store.js';

function driverError(code: string, message = 'driver says no'): Error {
  return Object.assign(new Error(message), { code });
}

describe('PostgreSQL errors say what to check', () => {
  const where = describeDatabaseUrl('postgres://user:s3cret@db.example:6543/graph');

  it('names host, port and database, never the password', () => {
    expect(where).toBe('db.example:6543/graph');
    expect(describeDatabaseUrl('postgres://localhost/graph')).toBe('localhost:5432/graph');
    expect(describeDatabaseUrl('not a url')).toBe('(unparsable URL)');
  });

  it.each([
    ['ECONNREFUSED', 'STORE_UNAVAILABLE', /cannot reach PostgreSQL at db\.example:6543\/graph \(ECONNREFUSED\); check that PostgreSQL is running/],
    ['ENOTFOUND', 'STORE_UNAVAILABLE', /cannot reach PostgreSQL/],
    ['ECONNRESET', 'STORE_UNAVAILABLE', /cannot reach PostgreSQL/],
    ['ETIMEDOUT', 'STORE_UNAVAILABLE', /cannot reach PostgreSQL/],
    ['53300', 'STORE_UNAVAILABLE', /no connection to spare \(53300/],
    ['28P01', 'INTERNAL', /refused the credentials.*check the user and password/],
    ['3D000', 'INTERNAL', /does not exist; create it/],
    ['42P01', 'INTERNAL', /tables are missing.*run migrate\(\)/],
    ['57P01', 'STORE_UNAVAILABLE', /lost the connection.*not committed, retry it/],
    ['57P03', 'STORE_UNAVAILABLE', /lost the connection/],
    ['08006', 'STORE_UNAVAILABLE', /lost the connection/],
    ['22P02', 'INVALID_INPUT', /rejected a value \(22P02/],
    ['23514', 'INVALID_INPUT', /rejected a value.*nothing was written/],
    ['23505', 'CONFLICT', /driver says no/],
    ['XX000', 'INTERNAL', /failed \(XX000\): driver says no/],
  ])('%s -> %s', (code, expected, message) => {
    const error = describePostgresError(driverError(code), 'appendTraces', where);
    expect(error.code).toBe(expected);
    expect(error.message).toMatch(/^appendTraces: /);
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/s3cret/);
  });

  it('recognises a connection timeout without a code', () => {
    const error = describePostgresError(new Error('Connection terminated due to connection timeout'), 'openPostgresStore', where);
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.message).toMatch(/timed out connecting to PostgreSQL at db\.example:6543\/graph/);
    expect(describePostgresError(new Error('timeout exceeded when trying to connect'), 'appendTraces', where).code).toBe('STORE_UNAVAILABLE');
  });

  it("recognises pg's words for a connection that closed under it", () => {
    for (const message of ['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable']) {
      const error = describePostgresError(new Error(message), 'appendTraces', where);
      expect(error.code, message).toBe('STORE_UNAVAILABLE');
      expect(error.message).toMatch(/^appendTraces: lost the connection to PostgreSQL at db\.example:6543\/graph/);
    }
  });
});
