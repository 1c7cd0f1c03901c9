import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TarsierError } from '../common/errors.js';
import { describeIoError } from '../common/files.js';
import type { WitnessDataModel, FormatVersion, Metadata } from './model.js';

export interface MetadataInput {
  formatVersion: FormatVersion;
  producer: { name: string; version: string; configuration?: string; command_line?: string };
  /** Omit for 0.1 certificates (their metadata has no task). */
  task?: {
    inputFiles: string[];
    /** File name (as in inputFiles) to SHA-256 hex; use `sha256OfFile`. */
    inputFileHashes: Record<string, string>;
    specification: string;
    dataModel: WitnessDataModel;
    language?: string;
  };
  /** Defaults to a random v4 UUID; pass one for deterministic output. */
  uuid?: string;
  /** Defaults to now (UTC, seconds); pin it for deterministic output. */
  creationTime?: string;
}

/** Builds entry metadata; `input_file_hashes` follows the order of `inputFiles`. */
export function makeMetadata(input: MetadataInput): Metadata {
  const md: Metadata = {
    format_version: input.formatVersion,
    uuid: input.uuid ?? randomUUID(),
    creation_time: input.creationTime ?? creationTimeNow(),
    producer: { ...input.producer },
  };
  if (input.task) {
    const hashes: Record<string, string> = {};
    for (const f of input.task.inputFiles) {
      const h = input.task.inputFileHashes[f];
      if (h === undefined) throw new TarsierError('metadata', `no hash given for input file '${f}'`);
      hashes[f] = h.toLowerCase();
    }
    md.task = {
      input_files: [...input.task.inputFiles],
      input_file_hashes: hashes,
      specification: input.task.specification,
      data_model: input.task.dataModel,
      language: input.task.language ?? 'C',
    };
  }
  return md;
}

/** `SOURCE_DATE_EPOCH` when set (reproducible builds), else now; always `YYYY-MM-DDThh:mm:ssZ`. */
export function creationTimeNow(): string {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const d = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function sha256OfText(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** SHA-256 (lowercase hex) of a file's bytes; a TarsierError (exit 2) when unreadable. */
export function sha256OfFile(path: string): string {
  try {
    return sha256OfText(readFileSync(path));
  } catch (e) {
    throw new TarsierError('io', describeIoError(e), { file: path }, 2);
  }
}
