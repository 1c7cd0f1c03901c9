/**
 * Makes a rendered report clickable: a pin, an annotation or a list entry
 * selects its marker (shows its details panel, highlights its witness lines
 * and scrolls both panes to it); a diagnostic's witness position scrolls the
 * witness pane. `tarsier report` inlines this function's source text into
 * its page, so it must stay self-contained: no imports, no outside names.
 */
export function attachReportInteractions(root: HTMLElement | null): void {
  if (!root) return;
  const all = (sel: string): HTMLElement[] => Array.from(root.querySelectorAll<HTMLElement>(sel));
  const showWitnessLines = (from: number, to: number): void => {
    all('.wl.hl').forEach((e) => e.classList.remove('hl'));
    for (let l = from; l <= to; l++) root.querySelector(`#W${l}`)?.classList.add('hl');
    root.querySelector(`#W${from}`)?.scrollIntoView({ block: 'nearest' });
  };
  const select = (id: string, scrollProgram: boolean): void => {
    all('.sel').forEach((e) => e.classList.remove('sel'));
    all(`.pin[data-marker="${id}"], .ann[data-marker="${id}"]`).forEach((e) => e.classList.add('sel'));
    all('.detail').forEach((e) => (e.hidden = e.dataset.marker !== id));
    const hint = root.querySelector<HTMLElement>('.details .hint');
    if (hint) hint.hidden = true;
    const detail = root.querySelector<HTMLElement>(`.detail[data-marker="${id}"]`);
    const range = /lines (\d+)–(\d+)/.exec(detail?.querySelector('.src-ref')?.textContent ?? '');
    if (range) showWitnessLines(Number(range[1]), Number(range[2]));
    if (scrollProgram) root.querySelector(`.pin[data-marker="${id}"]`)?.scrollIntoView({ block: 'center' });
    detail?.scrollIntoView({ block: 'nearest' });
  };
  root.addEventListener('click', (ev) => {
    const target = ev.target as HTMLElement;
    const wref = target.closest<HTMLElement>('a.wref');
    if (wref) {
      ev.preventDefault();
      const l = Number(wref.dataset.wline);
      showWitnessLines(l, l);
      return;
    }
    const marked = target.closest<HTMLElement>('[data-marker]');
    if (marked?.dataset.marker !== undefined) select(marked.dataset.marker, !marked.classList.contains('pin') && !marked.classList.contains('ann'));
  });
}
