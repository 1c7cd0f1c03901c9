// Hand-written 2.0 witnesses for the validation tests: the entry's metadata
// for one program, up to its `content:` line.

/** The start of a 2.0 entry of this type for `file` with SHA-256 `hash` under unreach-call (ILP32). */
export function witnessHeader(file: string, hash: string, entryType = 'violation_sequence'): string {
  return `- entry_type: "${entryType}"
  metadata:
    format_version: "2.0"
    uuid: "2b5f3c1e-1111-4222-8333-444455556666"
    creation_time: "2026-01-01T00:00:00Z"
    producer:
      name: "test"
      version: "1"
    task:
      input_files:
        - "${file}"
      input_file_hashes:
        "${file}": "${hash}"
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: "ILP32"
      language: "C"
  content:
`;
}
