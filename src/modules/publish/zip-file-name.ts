/** A readable download name for a course zip: `Safety at Work!` → `Safety-at-Work.zip`. */
export function zipFileName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .slice(0, 80)
  return `${slug || 'course'}.zip`
}
