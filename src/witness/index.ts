// The witness library: model, reading (with positions), writing, linting, converting.
export * from './model.js';
export { readWitness, readWitnessFile, readWitnessText, looksLikeXml } from './read.js';
export { writeWitness, type WriteOptions } from './write.js';
export { makeMetadata, sha256OfFile, sha256OfText, creationTimeNow, type MetadataInput } from './metadata.js';
export { readGraphml, writeGraphml, violationSequenceToGraphml, graphmlToViolationSequence } from './graphml.js';
export { formatDiagnosticLine, sortDiagnostics, type Diagnostic, type Severity } from './diagnostics.js';
export { WITNESS_LIMITS } from './yaml-source.js';
export { lintWitness, type LintOptions, type ExpressionContext } from './lint.js';
export { checkCExpression } from './cexpr.js';
export { convertTo20, convertToGraphml, type ConvertOptions, type ConvertNote, type ConvertResult } from './convert.js';
export { graphmlInvariants, GRAPHML_CLAIM_NOTE } from './graphml-invariants.js';
