// The person's files as the review tests give them to the store: in memory
// (text by path) or the real files of a temp dir.
import { readFile, unlink, writeFile } from 'node:fs/promises';
import type { RealTree } from '../../../extension/review/reviewStore';
import type { Content } from '../../../extension/review/fileReview';

/** Text files by path, in memory. */
export class MemoryTree implements RealTree {
  readonly files = new Map<string, string>();
  async read(path: string): Promise<Content> {
    const text = this.files.get(path);
    return text === undefined ? null : new TextEncoder().encode(text);
  }
  async write(path: string, content: Content): Promise<void> {
    if (content === null) this.files.delete(path);
    else this.files.set(path, new TextDecoder().decode(content));
  }
}

/** The person's tree as plain files on disk; an absent file reads as `null`, any other error throws. */
export const diskTree: RealTree = {
  async read(path: string): Promise<Content> {
    try {
      return new Uint8Array(await readFile(path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
  async write(path: string, content: Content): Promise<void> {
    if (content === null) await unlink(path);
    else await writeFile(path, content);
  },
};
