/** `fn`, called once `ms` after the last of a burst of calls (typing, resizing). */
export function debounce(fn, ms) {
  let timer = 0;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}
