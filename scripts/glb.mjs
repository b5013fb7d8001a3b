// Reading and writing binary glTF (.glb) containers, shared by the node scripts that make or rewrite test files.

const MAGIC = 0x46546c67; // "glTF"
const JSON_CHUNK = 0x4e4f534a;
const BIN_CHUNK = 0x004e4942;

const pad = (b, fill) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);

const chunk = (data, type) => {
  const h = Buffer.alloc(8);
  h.writeUInt32LE(data.length, 0);
  h.writeUInt32LE(type, 4);
  return Buffer.concat([h, data]);
};

// A GLB of `json` (an object) and `bin` (a Buffer, or null for none), each chunk padded to 4 bytes.
export function writeGlb(json, bin) {
  const chunks = [chunk(pad(Buffer.from(JSON.stringify(json)), 0x20), JSON_CHUNK)];
  if (bin) chunks.push(chunk(pad(bin, 0), BIN_CHUNK));
  const header = Buffer.alloc(12);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + chunks.reduce((n, c) => n + c.length, 0), 8);
  return Buffer.concat([header, ...chunks]);
}

// The JSON (parsed) and the BIN chunk's data (null when there is none) of a GLB.
export function readGlb(bytes) {
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
  const rest = bytes.subarray(20 + jsonLength);
  const bin = rest.length >= 8 ? rest.subarray(8, 8 + rest.readUInt32LE(0)) : null;
  return { json, bin };
}
