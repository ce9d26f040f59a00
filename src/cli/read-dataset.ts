/**
 * loadDataset for the commands: what a folder's loading read past (a tool name repeated with
 * another definition, its first kept) is said on stderr, so a run on third-party data goes on
 * and the reader still learns what was left out.
 */
import { loadDataset, type Dataset } from '../schema/dataset.js';
import type { CliOutput } from './command.js';

export async function readDataset(dir: string, io: CliOutput): Promise<Dataset> {
  const dataset = await loadDataset(dir);
  for (const warning of dataset.warnings ?? []) io.err(`warning: ${warning}\n`);
  return dataset;
}
