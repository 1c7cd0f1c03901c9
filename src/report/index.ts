// The report of a witness on its program: the facts (model), the HTML view (render), its clicks (interact).
export { buildReport, type ReportData, type ReportInput, type ReportMarker, type MarkerCategory, type ReportValidation } from './model.js';
export { renderReportBody, renderReportPage, REPORT_CSS } from './render.js';
export { attachReportInteractions } from './interact.js';
export { reportFromFiles, writeReportFile } from './files.js';
export { servePlayground, createPlaygroundServer, type ServeOptions } from './serve.js';
export { validationView, type ValidationView, type ValidationEntryStatus } from './validation.js';
