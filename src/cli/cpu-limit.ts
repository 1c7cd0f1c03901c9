// The total CPU-time limit (`--timeout`) of commands whose work is
// asynchronous (solver calls): the work races a watch on this process's CPU
// time, which includes the built-in solver's threads.

export type Limited<T> = { readonly value: T } | { readonly timedOut: true };

export function withinCpuTime<T>(seconds: number, work: Promise<T>): Promise<Limited<T>> {
  return new Promise((resolve, reject) => {
    const watch = setInterval(() => {
      const u = process.cpuUsage();
      if ((u.user + u.system) / 1e6 >= seconds) {
        clearInterval(watch);
        resolve({ timedOut: true });
      }
    }, 100);
    work.then(
      (value) => {
        clearInterval(watch);
        resolve({ value });
      },
      (e: unknown) => {
        clearInterval(watch);
        reject(e);
      },
    );
  });
}
