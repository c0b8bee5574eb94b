/**
 * Progress of a long operation on a terminal: one line on stderr, rewritten
 * in place (`validate: 1200/3000 files`), cleared when done. Shown only when
 * stderr is a terminal: piped or redirected output (CI logs, `2> file`)
 * stays exactly what it was.
 */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  /** `done` of `total` so far (of `unit`, else the line's own); redrawn at most every PROGRESS_INTERVAL_MS. */
  update(done: number, total: number, unit?: string): void;
  /** Clears the line, so what the tool prints next starts on a clean one. */
  end(): void;
}

export const PROGRESS_INTERVAL_MS = 100;

/** Whether progress is shown on `stream`: a terminal only. */
export function showsProgress(stream: ProgressStream): boolean {
  return stream.isTTY === true;
}

const SILENT: Progress = { update() {}, end() {} };

/** `label`: the tool (`validate`); `unit`: what is counted (`files`). */
export function progressLine(label: string, unit: string, stream: ProgressStream = process.stderr, now: () => number = Date.now): Progress {
  if (!showsProgress(stream)) return SILENT;
  let last = -Infinity;
  let shown = false;
  return {
    update(done, total, counted = unit) {
      const at = now();
      // Redrawn at once after end(): output printed between updates cleared the line.
      if (shown && at - last < PROGRESS_INTERVAL_MS && done < total) return;
      last = at;
      shown = true;
      // \r back to the line's start, \x1b[K erases what a longer earlier line left.
      stream.write(`\r${label}: ${done}/${total} ${counted}\x1b[K`);
    },
    end() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
