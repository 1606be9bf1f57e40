import { inflateRawSync } from 'node:zlib';

/**
 * The bytes of the first entry of a zip archive (a wheel) whose name `matches`. Reads the central
 * directory (its sizes are always right, unlike a local header followed by a data descriptor);
 * stored and deflated entries, no zip64. Throws when there is no such entry or the archive is not
 * a zip. The caller checks the result's checksum: this only has to find it.
 */
export function zipEntry(zip: Buffer, matches: (name: string) => boolean): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > zip.length) throw new Error('not a zip archive (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('not a zip archive (bad central directory)');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + skip;
    if (!matches(name)) continue;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`not a zip archive (bad local header of ${name})`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    if (method === 0) return Buffer.from(data);
    if (method !== 8) throw new Error(`${name}: zip method ${method} is not supported`);
    const out = inflateRawSync(data);
    if (out.length !== size) throw new Error(`${name}: inflated to ${out.length} bytes, not ${size}`);
    return out;
  }
  throw new Error('the archive has no such entry');
}
