import { TarsierError } from '../common/errors.js';
import type { DiagnosticSink } from './diagnostics.js';
import { toOneBasedColumn, type GraphmlEdge, type GraphmlKey, type GraphmlNode, type GraphmlWitness, type Metadata, type Segment, type ViolationSequenceEntry, type Waypoint } from './model.js';
import { functionAt, nameMayBeVisible, tokenAt, type ProgramView } from './program-tokens.js';
import {
  branchKeywordOnLine,
  branchSuccessor,
  callParenOnLine,
  entered,
  errorCallFrom,
  isSimpleStatement,
  nextInBlock,
  positionOf,
  simpleStatementOnLine,
  statementCalls,
  statementsOnLine,
} from './program-steps.js';
import { escapeXml, localName, parseXml, type XmlElement } from './xml.js';

const GRAPHML_NS = 'http://graphml.graphdrawing.org/xmlns';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** Reads a GraphML 1.0 witness (either type) leniently; XML syntax errors throw with a position. */
export function readGraphml(text: string, file: string): GraphmlWitness {
  return fromXml(parseXml(text, file), file);
}

function fromXml(root: XmlElement, file: string): GraphmlWitness {
  if (localName(root.name) !== 'graphml') {
    throw new TarsierError('graphml-root', `the root element is <${root.name}>, not <graphml>`, { file, ...root.at });
  }
  const keys: GraphmlKey[] = root.children
    .filter((c) => localName(c.name) === 'key')
    .map((k) => {
      const key: GraphmlKey = { id: k.attrs.id ?? '', for: k.attrs.for ?? 'all' };
      if (k.attrs['attr.name'] !== undefined) key.attrName = k.attrs['attr.name'];
      if (k.attrs['attr.type'] !== undefined) key.attrType = k.attrs['attr.type'];
      const d = k.children.find((c) => localName(c.name) === 'default');
      if (d) key.default = d.text.trim();
      return key;
    });
  const graph = root.children.find((c) => localName(c.name) === 'graph');
  const w: GraphmlWitness = { keys, graphData: [], nodes: [], edges: [] };
  if (!graph) return w;
  for (const c of graph.children) {
    const name = localName(c.name);
    if (name === 'data') w.graphData.push({ key: c.attrs.key ?? '', value: c.text.trim(), at: c.at });
    else if (name === 'node') w.nodes.push({ id: c.attrs.id ?? '', data: dataOf(c), at: c.at });
    else if (name === 'edge') w.edges.push({ source: c.attrs.source ?? '', target: c.attrs.target ?? '', data: dataOf(c), at: c.at });
  }
  const wt = w.graphData.find((d) => d.key === 'witness-type');
  if (wt) w.witnessType = wt.value;
  return w;
}

function dataOf(el: XmlElement): Record<string, string> {
  const data: Record<string, string> = {};
  for (const d of el.children) {
    if (localName(d.name) !== 'data') continue;
    // CPAchecker names the key `returnFrom`; normalise to the standard id.
    const key = d.attrs.key === 'returnFrom' ? 'returnFromFunction' : (d.attrs.key ?? '');
    data[key] = d.text.trim();
  }
  return data;
}

/** A graph data value (the first one). */
export function graphValue(w: GraphmlWitness, key: string): string | undefined {
  return w.graphData.find((d) => d.key === key)?.value;
}

/** Node data with the key defaults applied. */
export function nodeValue(w: GraphmlWitness, node: GraphmlNode, key: string): string | undefined {
  return node.data[key] ?? w.keys.find((k) => k.id === key && (k.for === 'node' || k.for === 'all'))?.default;
}

const isTrue = (v: string | undefined): boolean => v === 'true';

// ------------------------------------------------------------------ lint

const NODE_KEYS = new Set(['entry', 'sink', 'violation', 'invariant', 'invariant.scope', 'cyclehead']);
const EDGE_KEYS = new Set([
  'assumption', 'assumption.scope', 'assumption.resultfunction', 'control', 'startline', 'endline',
  'startoffset', 'endoffset', 'enterLoopHead', 'enterFunction', 'returnFromFunction', 'returnFrom', 'threadId', 'createThread',
]);
const GRAPH_KEYS = new Set([
  'witness-format-version', 'witness-type', 'sourcecodelang', 'producer', 'specification', 'programfile', 'programhash',
  'architecture', 'creationtime',
]);
const BOOLEAN_KEYS = new Set(['entry', 'sink', 'violation', 'enterLoopHead', 'cyclehead']);

/**
 * The checks of graphml-1.0.md §2 and §6 that need no program, modelled on
 * witnesslint. Rule ids are `graphml-*` (witness-formats.md §9 covers YAML only).
 */
export function lintGraphml(text: string, file: string, sink: DiagnosticSink): GraphmlWitness | undefined {
  let root: XmlElement;
  try {
    root = parseXml(text, file);
  } catch (e) {
    if (e instanceof TarsierError && e.location && 'line' in e.location) {
      sink.error('xml-syntax', e.location, e.message);
      return undefined;
    }
    throw e;
  }
  if (localName(root.name) !== 'graphml') {
    sink.error('graphml-structure', root.at, `the root element is <${root.name}>, not <graphml>`);
    return undefined;
  }
  if (root.attrs.xmlns !== GRAPHML_NS) sink.warn('graphml-namespace', root.at, `the default namespace should be ${GRAPHML_NS}`);
  if (root.attrs['xmlns:xsi'] !== undefined && root.attrs['xmlns:xsi'] !== XSI_NS) {
    sink.warn('graphml-namespace', root.at, `the prefix xsi should be bound to ${XSI_NS}`);
  }
  const graphs = root.children.filter((c) => localName(c.name) === 'graph');
  if (graphs.length !== 1) sink.error('graphml-structure', root.at, `expected exactly one <graph> element, found ${graphs.length}`);
  const keyDefs = new Map<string, { for: string; at: { line: number; column: number } }>();
  for (const k of root.children.filter((c) => localName(c.name) === 'key')) {
    const id = k.attrs.id;
    if (!id || !k.attrs.for) {
      sink.error('graphml-structure', k.at, 'a <key> needs the attributes id and for');
      continue;
    }
    if (keyDefs.has(id)) sink.error('graphml-structure', k.at, `key '${id}' is defined more than once`);
    keyDefs.set(id, { for: k.attrs.for, at: k.at });
    const expectedFor = NODE_KEYS.has(id) ? 'node' : EDGE_KEYS.has(id) ? 'edge' : GRAPH_KEYS.has(id) ? 'graph' : undefined;
    if (expectedFor && k.attrs.for !== expectedFor && k.attrs.for !== 'all') {
      sink.error('graphml-key-kind', k.at, `key '${id}' should be used for '${expectedFor}' elements but was defined for '${k.attrs.for}' elements`);
    }
    const def = k.children.find((c) => localName(c.name) === 'default');
    if (def && BOOLEAN_KEYS.has(id) && def.text.trim() !== 'false') {
      sink.warn('graphml-default', def.at, `default value for ${id} should be 'false'`);
    }
  }
  const w = fromXml(root, file);
  const graph = graphs[0];
  if (!graph) return w;
  if (graph.attrs.edgedefault !== 'directed') sink.error('graphml-structure', graph.at, 'graph must have edgedefault="directed"');

  const usedUndefined = (key: string, kind: 'graph' | 'node' | 'edge', at: { line: number; column: number }) => {
    const def = keyDefs.get(key);
    // Data under an undefined key is still readable (tools ignore what they do not know): lenient for validators.
    if (!def) sink.descriptive('graphml-undefined-key', at, `key '${key}' has been used but not defined`);
    else if (def.for !== kind && def.for !== 'all') sink.error('graphml-key-kind', at, `key '${key}' is defined for '${def.for}' but used on a ${kind}`);
  };
  for (const d of graph.children.filter((c) => localName(c.name) === 'data')) {
    usedUndefined(d.attrs.key ?? '', 'graph', d.at);
  }
  const seen = new Map<string, number>();
  for (const d of w.graphData) seen.set(d.key, (seen.get(d.key) ?? 0) + 1);
  for (const [k, n] of seen) {
    if (n > 1 && k !== 'specification') sink.error('graphml-structure', graph.at, `found multiple definitions of ${k}`);
  }
  const type = w.witnessType;
  if (type === undefined) sink.error('graphml-missing-data', graph.at, 'witness-type has not been specified');
  else if (!['violation_witness', 'correctness_witness', 'false_witness', 'true_witness', 'FALSE', 'TRUE'].includes(type)) {
    sink.error('graphml-bad-value', graph.at, `invalid witness-type '${type}'`);
  }
  for (const req of ['sourcecodelang', 'producer', 'specification', 'programfile', 'programhash', 'architecture', 'creationtime']) {
    if (!seen.has(req)) sink.warn('graphml-missing-data', graph.at, `${req} has not been specified`);
  }
  const lang = graphValue(w, 'sourcecodelang');
  if (lang !== undefined && lang !== 'C' && lang !== 'Java') sink.error('graphml-bad-value', graph.at, `invalid sourcecodelang '${lang}'`);
  const arch = graphValue(w, 'architecture');
  if (arch !== undefined && arch !== '32bit' && arch !== '64bit') sink.error('graphml-bad-value', graph.at, `invalid architecture '${arch}'`);
  const ct = graphValue(w, 'creationtime');
  if (ct !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/.test(ct)) {
    sink.warn('graphml-bad-value', graph.at, `creationtime '${ct}' is not of the form YYYY-MM-DDThh:mm:ss with a zone`);
  }
  const hash = graphValue(w, 'programhash');
  if (hash !== undefined && !/^([0-9a-fA-F]{64}|[0-9a-fA-F]{40})$/.test(hash)) sink.error('bad-hash', graph.at, `programhash '${hash}' is not a SHA-256 hash`);

  const violation = type === 'violation_witness' || type === 'false_witness' || type === 'FALSE';
  const correctness = type === 'correctness_witness' || type === 'true_witness' || type === 'TRUE';
  const spec = w.graphData.filter((d) => d.key === 'specification').map((d) => d.value).join('\n');
  const termination = /CHECK\(\s*init\(\s*\w+\(\)\s*\)\s*,\s*LTL\(\s*F\s+end\s*\)\s*\)/.test(spec) || w.nodes.some((n) => isTrue(n.data.cyclehead));

  const nodeIds = new Map<string, GraphmlNode>();
  const entries: GraphmlNode[] = [];
  let cycleheads = 0;
  const nodeEls = graph.children.filter((c) => localName(c.name) === 'node');
  nodeEls.forEach((el, i) => {
    const n = w.nodes[i];
    if (!n.id) sink.error('graphml-structure', el.at, 'a node needs an id');
    else if (nodeIds.has(n.id)) sink.error('graphml-structure', el.at, `node id '${n.id}' is used twice`);
    nodeIds.set(n.id, n);
    for (const d of el.children.filter((c) => localName(c.name) === 'data')) {
      const key = d.attrs.key ?? '';
      usedUndefined(key, 'node', d.at);
      if (d.selfClosing) sink.warn('graphml-structure', d.at, "paired tag 'data' used as single tag");
      if (BOOLEAN_KEYS.has(key) && d.text.trim() !== 'true' && d.text.trim() !== 'false') {
        sink.error('graphml-bad-value', d.at, `invalid boolean value '${d.text.trim()}' for ${key}`);
      }
      if (correctness && (key === 'sink' || key === 'violation')) sink.error('graphml-key-not-allowed', d.at, `key '${key}' is not allowed in correctness witness`);
      if (violation && !termination && (key === 'invariant' || key === 'invariant.scope')) {
        sink.error('graphml-key-not-allowed', d.at, `key '${key}' is not allowed in violation witness`);
      }
    }
    if (isTrue(nodeValue(w, n, 'entry'))) entries.push(n);
    if (isTrue(nodeValue(w, n, 'cyclehead'))) cycleheads++;
  });
  if (entries.length === 0) sink.error('graphml-entry-node', graph.at, 'no entry node has been specified');
  if (entries.length > 1) sink.error('graphml-entry-node', entries[1].at, `found multiple entry nodes ('${entries.map((e) => e.id).join("', '")}')`);
  if (cycleheads > 1) sink.error('graphml-structure', graph.at, 'found more than one cyclehead');

  const edgeEls = graph.children.filter((c) => localName(c.name) === 'edge');
  edgeEls.forEach((el, i) => {
    const e = w.edges[i];
    for (const end of [e.source, e.target]) {
      if (!nodeIds.has(end)) sink.error('graphml-structure', el.at, `edge refers to undeclared node '${end}'`);
    }
    if (e.source === e.target) sink.warn('graphml-self-loop', el.at, `self-loop at node '${e.source}'`);
    const src = nodeIds.get(e.source);
    if (src && isTrue(nodeValue(w, src, 'sink'))) sink.error('graphml-sink-edge', el.at, `sink node '${src.id}' should have no leaving edges`);
    for (const d of el.children.filter((c) => localName(c.name) === 'data')) {
      const key = d.attrs.key ?? '';
      usedUndefined(key, 'edge', d.at);
      const v = d.text.trim();
      if (key === 'control' && v !== 'condition-true' && v !== 'condition-false') sink.error('graphml-bad-value', d.at, `invalid control value '${v}'`);
      if (BOOLEAN_KEYS.has(key) && v !== 'true' && v !== 'false') sink.error('graphml-bad-value', d.at, `invalid boolean value '${v}' for ${key}`);
      if ((key === 'startline' || key === 'endline') && !/^\d+$/.test(v)) sink.error('graphml-bad-value', d.at, `${key} '${v}' is not a line number`);
      if ((key === 'startoffset' || key === 'endoffset') && !/^\d+$/.test(v)) sink.error('graphml-bad-value', d.at, `${key} '${v}' is not an offset`);
      if (correctness && key === 'assumption.resultfunction') sink.error('graphml-key-not-allowed', d.at, `key '${key}' is not allowed in correctness witness`);
      if (correctness && (key === 'assumption' || key === 'assumption.scope')) {
        sink.warn('graphml-key-not-allowed', d.at, `key '${key}' in a correctness witness is allowed only if it does not restrict the state space`);
      }
      if (key === 'assumption' && v.includes('\\result') && e.data['assumption.resultfunction'] === undefined) {
        sink.error('graphml-missing-data', d.at, "found assumption containing '\\result' but no resultfunction was specified");
      }
    }
  });
  return w;
}

// ------------------------------------------------------------------ write

const KEY_DEFS: Array<[id: string, kind: string, attrName: string, attrType: string, def?: string]> = [
  ['witness-format-version', 'graph', 'witness-format-version', 'string'],
  ['witness-type', 'graph', 'witness-type', 'string'],
  ['sourcecodelang', 'graph', 'sourcecodeLanguage', 'string'],
  ['producer', 'graph', 'producer', 'string'],
  ['specification', 'graph', 'specification', 'string'],
  ['programfile', 'graph', 'programFile', 'string'],
  ['programhash', 'graph', 'programHash', 'string'],
  ['architecture', 'graph', 'architecture', 'string'],
  ['creationtime', 'graph', 'creationTime', 'string'],
  ['entry', 'node', 'isEntryNode', 'boolean', 'false'],
  ['sink', 'node', 'isSinkNode', 'boolean', 'false'],
  ['violation', 'node', 'isViolationNode', 'boolean', 'false'],
  ['invariant', 'node', 'invariant', 'string'],
  ['invariant.scope', 'node', 'invariant.scope', 'string'],
  ['cyclehead', 'node', 'cyclehead', 'boolean', 'false'],
  ['assumption', 'edge', 'assumption', 'string'],
  ['assumption.scope', 'edge', 'assumption.scope', 'string'],
  ['assumption.resultfunction', 'edge', 'assumption.resultfunction', 'string'],
  ['control', 'edge', 'control', 'string'],
  ['startline', 'edge', 'startline', 'int'],
  ['endline', 'edge', 'endline', 'int'],
  ['startoffset', 'edge', 'startoffset', 'int'],
  ['endoffset', 'edge', 'endoffset', 'int'],
  ['enterLoopHead', 'edge', 'enterLoopHead', 'boolean', 'false'],
  ['enterFunction', 'edge', 'enterFunction', 'string'],
  ['returnFromFunction', 'edge', 'returnFromFunction', 'string'],
  ['threadId', 'edge', 'threadId', 'string'],
  ['createThread', 'edge', 'createThread', 'string'],
];

/**
 * Writes a GraphML 1.0 witness deterministically: only the standard keys that
 * are used are defined, graph data first, nodes before edges, data in the
 * order of the key table.
 */
export function writeGraphml(w: GraphmlWitness): string {
  const used = new Set<string>([...w.graphData.map((d) => d.key)]);
  for (const n of w.nodes) Object.keys(n.data).forEach((k) => used.add(k));
  for (const e of w.edges) Object.keys(e.data).forEach((k) => used.add(k));
  const order = new Map(KEY_DEFS.map(([id], i) => [id, i]));
  const sortKeys = (ks: string[]) => ks.sort((a, b) => (order.get(a) ?? 999) - (order.get(b) ?? 999) || (a < b ? -1 : a > b ? 1 : 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
    `<graphml xmlns="${GRAPHML_NS}" xmlns:xsi="${XSI_NS}">`,
  ];
  // Keys the model defines are written as they are (round trip); used but undefined ones get the standard definition.
  const defined = new Set<string>();
  for (const k of w.keys) {
    defined.add(k.id);
    const attrs = [`id="${escapeXml(k.id)}"`, `for="${escapeXml(k.for)}"`];
    if (k.attrName !== undefined) attrs.push(`attr.name="${escapeXml(k.attrName)}"`);
    if (k.attrType !== undefined) attrs.push(`attr.type="${escapeXml(k.attrType)}"`);
    const head = `  <key ${attrs.join(' ')}`;
    lines.push(k.default !== undefined ? `${head}><default>${escapeXml(k.default)}</default></key>` : `${head}/>`);
  }
  for (const [id, kind, name, type, def] of KEY_DEFS) {
    if (!used.has(id) || defined.has(id)) continue;
    const head = `  <key id="${id}" for="${kind}" attr.name="${name}" attr.type="${type}"`;
    lines.push(def !== undefined ? `${head}><default>${def}</default></key>` : `${head}/>`);
  }
  for (const k of sortKeys([...used].filter((k) => !order.has(k) && !defined.has(k)))) {
    lines.push(`  <key id="${escapeXml(k)}" for="all" attr.name="${escapeXml(k)}" attr.type="string"/>`);
  }
  lines.push('  <graph edgedefault="directed">');
  for (const d of w.graphData) {
    lines.push(`    <data key="${escapeXml(d.key)}">${escapeXml(d.value)}</data>`);
  }
  const dataLines = (data: Record<string, string>) =>
    sortKeys(Object.keys(data)).map((k) => `      <data key="${escapeXml(k)}">${escapeXml(data[k])}</data>`);
  for (const n of w.nodes) {
    const inner = dataLines(n.data);
    lines.push(inner.length ? `    <node id="${escapeXml(n.id)}">` : `    <node id="${escapeXml(n.id)}"/>`);
    if (inner.length) lines.push(...inner, '    </node>');
  }
  for (const e of w.edges) {
    const inner = dataLines(e.data);
    const head = `    <edge source="${escapeXml(e.source)}" target="${escapeXml(e.target)}"`;
    lines.push(inner.length ? `${head}>` : `${head}/>`);
    if (inner.length) lines.push(...inner, '    </edge>');
  }
  lines.push('  </graph>', '</graphml>', '');
  return lines.join('\n');
}

/**
 * A GraphML violation witness for a 2.x violation sequence: a chain of
 * states, one edge per follow waypoint (startline, control for branchings,
 * `\result` constraints with their function, calls entered), the last node
 * marked `violation`. A 2.x waypoint names no function; with the program
 * the function called at a waypoint's `)` is named (`enterFunction`,
 * `assumption.resultfunction`), without it the result function is the
 * caller's name (a caller that knows the callees puts them in). Avoid
 * waypoints cannot be expressed by a chain, and an assumption that holds
 * before a statement not by a GraphML assumption (which holds after a
 * step): both are left out (returned in `dropped`).
 */
export function violationSequenceToGraphml(
  entry: ViolationSequenceEntry,
  programFile: string,
  program?: ProgramView,
): { graphml: GraphmlWitness; dropped: string[] } {
  const md = entry.metadata;
  const task = md.task;
  const hash = task?.input_file_hashes[programFile] ?? Object.values(task?.input_file_hashes ?? {})[0] ?? '';
  const graphData: GraphmlWitness['graphData'] = [
    { key: 'witness-type', value: 'violation_witness' },
    { key: 'sourcecodelang', value: task?.language ?? 'C' },
    { key: 'producer', value: [md.producer.name, md.producer.version].filter(Boolean).join(' ') },
    // One element per property line: the official linter's --svcomp mode accepts only single CHECK lines.
    ...specificationLines(task?.specification).map((value) => ({ key: 'specification', value })),
    { key: 'programfile', value: programFile },
    { key: 'programhash', value: hash },
    { key: 'architecture', value: task?.data_model === 'LP64' ? '64bit' : '32bit' },
    { key: 'creationtime', value: md.creation_time.replace(/\.\d+/, '') },
  ];
  const nodes: GraphmlNode[] = [{ id: 'N0', data: { entry: 'true' } }];
  const edges: GraphmlEdge[] = [];
  const dropped: string[] = [];
  /** The function called at the `)` a location points at, found in the program. */
  const callee = (l: Waypoint['location']): string | undefined => {
    const column = toOneBasedColumn(l);
    const k = program && column !== undefined ? tokenAt(program, l.line, column) : undefined;
    const t = k === undefined ? undefined : program!.tokens[k];
    return t?.text === ')' && t.opener && /^[A-Za-z_]\w*$/.test(t.opener) ? t.opener : undefined;
  };
  let n = 0;
  for (const seg of entry.content) {
    for (const wp of seg.waypoints) {
      if (wp.action !== 'follow') {
        dropped.push(`${wp.action} waypoint (${wp.type}) at line ${wp.location.line}`);
        continue;
      }
      if (wp.type === 'target') continue;
      const data: Record<string, string> = { startline: String(wp.location.line) };
      if (wp.type === 'branching') {
        const v = String(wp.constraint?.value ?? '');
        if (v === 'true' || v === 'false') data.control = v === 'true' ? 'condition-true' : 'condition-false';
        else dropped.push(`switch branching value '${v}' at line ${wp.location.line}`);
      } else if (wp.type === 'assumption') {
        dropped.push(`assumption '${String(wp.constraint?.value ?? '')}' before the statement at line ${wp.location.line} (a GraphML assumption holds after a step)`);
        continue;
      } else if (wp.type === 'function_return' && wp.constraint) {
        data.assumption = `${wp.constraint.value};`;
        if (wp.location.function) data['assumption.scope'] = wp.location.function;
        data['assumption.resultfunction'] = callee(wp.location) ?? wp.location.function ?? '';
      } else if (wp.type === 'function_enter') {
        const f = callee(wp.location);
        if (f) data.enterFunction = f;
      }
      const next = `N${++n}`;
      nodes.push({ id: next, data: {} });
      edges.push({ source: `N${n - 1}`, target: next, data });
    }
  }
  const target = entry.content.at(-1)?.waypoints.at(-1);
  const last = `N${++n}`;
  nodes.push({ id: last, data: { violation: 'true' } });
  edges.push({ source: `N${n - 1}`, target: last, data: target ? { startline: String(target.location.line) } : {} });
  return { graphml: { witnessType: 'violation_witness', keys: [], graphData, nodes, edges }, dropped };
}

/** The property lines of a specification (several for memory safety), each a GraphML `specification` value. */
export function specificationLines(specification: string | undefined): string[] {
  const lines = (specification ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length > 0 ? lines : [''];
}

/**
 * The shortest path of edges from the entry node to a violation node that
 * avoids sink nodes (breadth-first, deterministic by edge order), or
 * undefined when there is no entry node or no such path.
 */
export function graphmlViolationPath(w: GraphmlWitness): GraphmlEdge[] | undefined {
  const entryNode = w.nodes.find((n) => isTrue(nodeValue(w, n, 'entry')));
  if (!entryNode) return undefined;
  const out = new Map<string, GraphmlEdge[]>();
  for (const e of w.edges) out.set(e.source, [...(out.get(e.source) ?? []), e]);
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const prev = new Map<string, GraphmlEdge | null>([[entryNode.id, null]]);
  const queue = [entryNode.id];
  let goal: string | undefined;
  while (queue.length > 0) {
    const id = queue.shift()!;
    const node = byId.get(id);
    if (node && isTrue(nodeValue(w, node, 'violation'))) {
      goal = id;
      break;
    }
    for (const e of out.get(id) ?? []) {
      const t = byId.get(e.target);
      if (!t || prev.has(e.target) || isTrue(nodeValue(w, t, 'sink'))) continue;
      prev.set(e.target, e);
      queue.push(e.target);
    }
  }
  if (goal === undefined) return undefined;
  const path: GraphmlEdge[] = [];
  for (let e = prev.get(goal); e; e = prev.get(e.source)) path.unshift(e);
  return path;
}

const C_WORDS = new Set(['sizeof', 'int', 'char', 'short', 'long', 'unsigned', 'signed', 'float', 'double', '_Bool', 'void', 'const', 'volatile', 'struct', 'union', 'enum']);

/** The names in a C expression that are not visible at a position (token-level, as the linter checks). */
export function invisibleNames(program: ProgramView, expression: string, line: number, column: number): string[] {
  const fn = functionAt(program, line, column);
  const names = (expression.replace(/"(\\.|[^"\\])*"|'(\\.|[^'\\])*'/g, ' ').match(/[A-Za-z_]\w*/g) ?? []).filter((n) => !C_WORDS.has(n) && !/^\d/.test(n));
  return [...new Set(names)].filter((n) => !nameMayBeVisible(program, n, fn));
}

/** The function whose call is the violation in a safety specification (`G ! call(reach_error())`). */
function errorFunctionOf(specification: string | undefined): string | undefined {
  return /call\s*\(\s*([A-Za-z_]\w*)\s*\(/.exec(specification ?? '')?.[1];
}

/**
 * Reads a GraphML violation witness into the 2.x model: the shortest path
 * from the entry node to a violation node (avoiding sinks) becomes a sequence
 * of follow waypoints. What a GraphML edge says holds *after* its step; a 2.x
 * assumption holds *before* a statement, so with the program (`program`) an
 * assumption is placed before the statement that runs next (after a branch:
 * the first statement of the branch taken), columns are filled in, calls
 * entered become `function_enter` waypoints, and the target of a call
 * specification is the error-function call the last step leads to. Without
 * the program, locations carry the line only ("leftmost suitable
 * position") and what needs the program is reported. What cannot be
 * expressed is returned in `dropped`; no entry, when the violation cannot
 * be placed.
 */
export function graphmlToViolationSequence(
  w: GraphmlWitness,
  metadata: Metadata,
  program?: ProgramView,
): { entry?: ViolationSequenceEntry; dropped: string[] } {
  const dropped: string[] = [];
  if (!w.nodes.some((n) => isTrue(nodeValue(w, n, 'entry')))) return { dropped: ['the GraphML witness has no entry node'] };
  const path = graphmlViolationPath(w);
  if (!path) return { dropped: ['no path from the entry node to a violation node'] };
  const file = metadata.task?.input_files[0] ?? graphValue(w, 'programfile') ?? '';
  const loc = (line: number, fn?: string) => ({ file_name: file, line, columnBase: 1 as const, ...(fn ? { function: fn } : {}) });
  const at = (k: number, fn?: string) => {
    const p = positionOf(program!, k);
    return { file_name: file, line: p.line, column: p.column, columnBase: 1 as const, ...((p.function ?? fn) ? { function: p.function ?? fn } : {}) };
  };
  const segments: Segment[] = [];
  let lastLine = 0;
  for (const e of path) {
    const line = Number(e.data.startline);
    if (!Number.isInteger(line) || line < 1) {
      if (e.data.assumption || e.data.control) dropped.push(`a guard without startline (edge ${e.source} -> ${e.target})`);
      continue;
    }
    lastLine = line;
    const wps: Waypoint[] = [];
    const scope = e.data['assumption.scope'];
    const branch = e.data.control === 'condition-true' || e.data.control === 'condition-false';
    const taken = e.data.control === 'condition-true';
    let keyword: number | undefined;
    if (branch) {
      const b = program ? branchKeywordOnLine(program, line) : undefined;
      keyword = typeof b === 'number' ? b : undefined;
      wps.push({ type: 'branching', action: 'follow', location: keyword !== undefined ? at(keyword) : loc(line), constraint: { value: taken ? 'true' : 'false' } });
    }
    if (e.data.enterFunction) {
      const paren = program ? callParenOnLine(program, line, e.data.enterFunction) : undefined;
      if (paren !== undefined) wps.push({ type: 'function_enter', action: 'follow', location: at(paren) });
      else dropped.push(`enterFunction ${e.data.enterFunction} at line ${line} (${program ? `no single call of ${e.data.enterFunction} on that line` : "2.x needs the column of the call's ')': give the program"})`);
    }
    if (e.data.assumption) {
      const parts = e.data.assumption.split(';').map((s) => s.trim()).filter(Boolean);
      const resultFunction = e.data['assumption.resultfunction'];
      if (resultFunction) {
        const paren = program ? callParenOnLine(program, line, resultFunction) : undefined;
        for (const p of parts) {
          if (/^\\result\s*(==|!=|<=|>=|<|>)\s*[-+]?\w+$/.test(p)) {
            wps.push({ type: 'function_return', action: 'follow', location: paren !== undefined ? at(paren, scope) : loc(line, scope), constraint: { value: p, format: 'acsl_expression' } });
          } else dropped.push(`result assumption '${p}' at line ${line}`);
        }
      } else if (parts.length > 0) {
        const what = `assumption '${parts.join('; ')}' after ${branch ? `the ${e.data.control} branch at` : ''} line ${line}`.replace('after  line', 'after line');
        if (!program) {
          dropped.push(`${what} (it holds after that step; a 2.x assumption holds before a statement: give the program to place it before the next one)`);
        } else {
          // The statement that runs next: the first of the branch taken, or the one after the step's statement.
          let next: number | undefined;
          let why = '';
          if (branch) {
            next = keyword !== undefined ? branchSuccessor(program, keyword, taken) : undefined;
            why = keyword === undefined ? String(branchKeywordOnLine(program, line)) : `the ${taken ? 'then' : 'else'} branch has no statement`;
          } else {
            const s = simpleStatementOnLine(program, line);
            next = typeof s === 'number' ? entered(program, nextInBlock(program, s)) : undefined;
            why = typeof s === 'number' ? `the statement on line ${line} is the last of its block` : s;
          }
          const value = parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' && ');
          const hidden = next === undefined ? [] : invisibleNames(program, value, program.tokens[next].line, program.tokens[next].column);
          if (next === undefined) dropped.push(`${what} (${why})`);
          else if (hidden.length > 0) dropped.push(`${what} (${hidden.join(', ')} not visible at line ${program.tokens[next].line})`);
          else wps.push({ type: 'assumption', action: 'follow', location: at(next, scope), constraint: { value, format: 'c_expression' } });
        }
      }
    }
    for (const wp of wps) segments.push({ waypoints: [wp] });
  }
  const last = path.at(-1);
  const targetLine = Number(last?.data.startline) || lastLine;
  if (!targetLine) return { dropped: [...dropped, 'the violation is not tied to a line'] };
  const lastBranch = last?.data.control === 'condition-true' || last?.data.control === 'condition-false';
  const errorFunction = errorFunctionOf(metadata.task?.specification);
  if (errorFunction && program) {
    // The violation is the error-function call that the last step leads to.
    let target: number | undefined;
    if (lastBranch) {
      const b = branchKeywordOnLine(program, targetLine);
      target = typeof b === 'number' ? errorCallFrom(program, branchSuccessor(program, b, last!.data.control === 'condition-true'), errorFunction) : undefined;
    } else {
      const onLine = statementsOnLine(program, targetLine).filter((k) => isSimpleStatement(program, k) && statementCalls(program, k, errorFunction));
      const s = simpleStatementOnLine(program, targetLine);
      target = onLine[0] ?? (typeof s === 'number' ? errorCallFrom(program, nextInBlock(program, s), errorFunction) : undefined);
    }
    if (target === undefined) return { dropped: [...dropped, `the violation after the step on line ${targetLine} is not a call of ${errorFunction} that the program reaches from there without a further branch`] };
    segments.push({ waypoints: [{ type: 'target', action: 'follow', location: at(target) }] });
    return { entry: { entry_type: 'violation_sequence', metadata, content: segments }, dropped };
  }
  if (errorFunction && lastBranch) {
    return { dropped: [...dropped, `the violation follows the ${last!.data.control} branch at line ${targetLine}; the ${errorFunction}() call it leads to can be located only in the program: give the program (--program)`] };
  }
  if (errorFunction) dropped.push(`without the program the target is the statement at line ${targetLine} (the last step), not checked to be the ${errorFunction}() call: give the program to check it`);
  // Other properties: the last step's statement is where the violation happens (an overflow in
  // a branch's condition: the branching statement, and its direction is dropped).
  if (lastBranch && segments.length > 0) {
    segments.pop();
    dropped.push(`the target is the statement at line ${targetLine} (the last branching, whose ${last!.data.control} branch leads to the violation)`);
  }
  segments.push({ waypoints: [{ type: 'target', action: 'follow', location: loc(targetLine) }] });
  return { entry: { entry_type: 'violation_sequence', metadata, content: segments }, dropped };
}
