// Small helpers every tool uses to speak to the model and the person.
import path from 'node:path';
import { PathError } from '../workspace/containment';
import type { ToolEffect, ToolResult } from './tool';

/** A failed call: the model reads `message` (what went wrong and what to do), the card shows it too. */
export function failure(message: string): ToolResult {
  return { forModel: message, forUser: [{ type: 'text', text: message }], isError: true };
}

export function success(forModel: string, forUser: ToolResult['forUser'] = [{ type: 'text', text: forModel }]): ToolResult {
  return { forModel, forUser };
}

/** The path as the model and person read it: relative to the root when inside, else as given. */
export function shown(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? absolute : relative;
}

/** Best-effort absolute location for a card, computed without I/O (describe must not fail). */
export function locate(root: string, requested: string): string {
  return path.resolve(root, requested.replace(/\0/g, ''));
}

/**
 * Turns an expected failure into an effect or result; anything else (a bug, or
 * an abort) propagates. Aborts must reach the turn loop as aborts.
 */
export function expectedFailure(error: unknown): string | null {
  if (error instanceof PathError || error instanceof ToolInputError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || code === 'ABORT_ERR') return null;
  const hint = FILESYSTEM_HINTS[code];
  return hint ? `${hint} (${(error as Error).message})` : (error as Error).message;
}

/** What common filesystem errors mean for the model's next step. */
const FILESYSTEM_HINTS: Record<string, string> = {
  ENOENT: 'The file or directory does not exist. Use list_files to find the right path.',
  ENOTDIR: 'Part of the path is a file, not a directory. Check the path with list_files.',
  EISDIR: 'The path is a directory, not a file.',
  EACCES: 'Permission denied: the agent cannot access this path.',
  EPERM: 'The operating system does not allow this operation on this path.',
  EROFS: 'The filesystem is read-only here.',
  ENOSPC: 'The disk is full.',
  ENAMETOOLONG: 'The path or a file name is too long.',
};

/** A call that cannot proceed as given; the message is for the model. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

export function errorEffect(error: unknown): ToolEffect {
  const message = expectedFailure(error);
  if (message === null) throw error;
  return { type: 'error', message };
}

export function errorResult(error: unknown): ToolResult {
  const message = expectedFailure(error);
  if (message === null) throw error;
  return failure(message);
}
