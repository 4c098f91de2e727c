// Copying large files through a stream pipeline (the account archive's media into its ZIP)
// with a fixed handful of read buffers. fs.createReadStream allocates a fresh 64 KB Buffer per
// read; the spent ones are native memory that V8 only frees at its next GC, which a job moving
// 200 MB with little JS allocation rarely triggers: ~100 MB of RSS piled up (issue 16's budget
// is 50). Here the reader takes a buffer from the pool and the file sink at the end of the
// pipeline hands it back once its bytes are on disk, so RSS stays flat however much is copied.
// Every stage between must pass chunks on unchanged (yazl's CRC and byte counters do).
import { type FileHandle, open } from "node:fs/promises";
import { Readable, Writable } from "node:stream";

export class BufferPool {
  private readonly free: Buffer[] = [];
  private readonly owned = new WeakSet<ArrayBufferLike>();
  private readonly waiting: ((b: Buffer) => void)[] = [];

  constructor(
    readonly size: number,
    count: number,
  ) {
    for (let i = 0; i < count; i++) {
      const b = Buffer.allocUnsafeSlow(size); // its own ArrayBuffer, never Node's shared slab
      this.owned.add(b.buffer);
      this.free.push(b);
    }
  }

  acquire(): Promise<Buffer> {
    const b = this.free.pop();
    return b ? Promise.resolve(b) : new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives a chunk's buffer back if it is one of ours; other chunks are left alone. */
  release(chunk: Uint8Array): void {
    if (!this.owned.has(chunk.buffer)) return;
    const b = Buffer.from(chunk.buffer, 0, this.size);
    const next = this.waiting.shift();
    if (next) next(b);
    else this.free.push(b);
  }
}

/**
 * A file as a byte stream read into the pool's buffers. The chunks must end in a
 * `pooledFileSink` of the same pool, or the reader stalls once the pool is spent.
 */
export function pooledFileStream(path: string, pool: BufferPool): Readable {
  let fh: FileHandle | undefined;
  let position = 0;
  return new Readable({
    highWaterMark: pool.size, // read one chunk ahead, no more
    async construct(cb) {
      try {
        fh = await open(path, "r");
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    async read() {
      const buf = await pool.acquire();
      try {
        const { bytesRead } = await fh!.read(buf, 0, buf.length, position);
        position += bytesRead;
        if (bytesRead === 0) {
          pool.release(buf);
          this.push(null);
        } else this.push(buf.subarray(0, bytesRead));
      } catch (e) {
        pool.release(buf);
        this.destroy(e as Error);
      }
    },
    destroy(err, cb) {
      if (!fh) return cb(err);
      fh.close().then(
        () => cb(err),
        (e) => cb(err ?? e),
      );
    },
  });
}

/** A file write stream that returns the pool's buffers once their bytes are written. */
export function pooledFileSink(path: string, pool: BufferPool): Writable {
  let fh: FileHandle | undefined;
  const close = async () => {
    const h = fh;
    fh = undefined;
    await h?.close();
  };
  return new Writable({
    async construct(cb) {
      try {
        fh = await open(path, "w");
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    async write(chunk: Buffer, _enc, cb) {
      try {
        let off = 0;
        while (off < chunk.length) off += (await fh!.write(chunk, off, chunk.length - off)).bytesWritten;
        pool.release(chunk);
        cb();
      } catch (e) {
        pool.release(chunk);
        cb(e as Error);
      }
    },
    final(cb) {
      close().then(() => cb(), cb);
    },
    destroy(err, cb) {
      close().then(
        () => cb(err),
        (e) => cb(err ?? e),
      );
    },
  });
}
