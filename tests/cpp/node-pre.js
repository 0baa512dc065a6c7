// The test runners are built for Node only. Node 20 has a global fetch that cannot read file
// paths, and Emscripten 3.1.6's glue prefers fetch whenever it exists: hide it so the glue reads
// the .wasm with fs.
var fetch = undefined;
