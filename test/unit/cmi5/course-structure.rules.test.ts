import assert from 'node:assert/strict'
import { test } from 'node:test'
import { courseStructureProblems } from '../../../src/modules/cmi5/course-structure.rules.ts'
import { parseXmlDocument } from '../../../src/modules/scorm/manifest/xml.reader.ts'

const problems = (body: string) =>
  courseStructureProblems(
    parseXmlDocument(
      `<courseStructure><course id="https://e.x/c"><title/><description/></course>${body}</courseStructure>`,
      'cmi5.xml',
    ).root,
  )

const au = (id: string, inner = '<title/><description/><url>index.html</url>') =>
  `<au id="${id}">${inner}</au>`

test('a well-formed course has no problems', () => {
  assert.deepEqual(problems(au('https://e.x/a1') + au('https://e.x/a2')), [])
})

test('ids are unique across course, blocks, AUs and objectives (13.1.2.0-1)', () => {
  const block = `<block id="https://e.x/b"><title/><description/>${au('https://e.x/a')}</block>`
  assert.match(problems(block + block.replace('e.x/a', 'e.x/a2'))[0] ?? '', /used twice/)
  assert.match(problems(au('https://e.x/c'))[0] ?? '', /used twice/)
})

test('AU URLs must be URLs and the schema order holds (13.1.4.0-2, 13.2.0.0-1)', () => {
  const spaced = au('https://e.x/a', '<title/><description/><url>http://e.x a.html</url>')
  assert.match(problems(spaced)[0] ?? '', /not a valid URL/)
  const reordered = au('https://e.x/a', '<url>index.html</url><title/><description/>')
  assert.match(problems(reordered)[0] ?? '', /comes after <url>/)
})
