import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { blocksHtml } from '../../../src/modules/publish/course-generator/blocks-html.renderer.ts'
import {
  type Block,
  parseInline,
  parseSlideMarkdown,
} from '../../../src/modules/publish/course-generator/index.ts'

const html = (content: string) => blocksHtml(parseSlideMarkdown(content), 1)

describe('quick publish markdown: inline formatting', () => {
  test('**bold** and *italic* become bold and italic runs', () => {
    assert.deepEqual(parseInline('a **bold** and *italic* word'), [
      { text: 'a ' },
      { text: 'bold', bold: true },
      { text: ' and ' },
      { text: 'italic', italic: true },
      { text: ' word' },
    ])
  })

  test('***both*** and nesting either way', () => {
    assert.deepEqual(parseInline('***both***'), [{ text: 'both', bold: true, italic: true }])
    assert.deepEqual(parseInline('*a **b** c*'), [
      { text: 'a ', italic: true },
      { text: 'b', bold: true, italic: true },
      { text: ' c', italic: true },
    ])
    assert.deepEqual(parseInline('**a *b* c**'), [
      { text: 'a ', bold: true },
      { text: 'b', bold: true, italic: true },
      { text: ' c', bold: true },
    ])
  })

  test('asterisks that do not open or close stay literal', () => {
    assert.deepEqual(parseInline('2 * 3 * 4'), [{ text: '2 * 3 * 4' }])
    assert.deepEqual(parseInline('**not closed'), [{ text: '**not closed' }])
    assert.deepEqual(parseInline('* not italic *'), [{ text: '* not italic *' }])
    assert.deepEqual(parseInline('a \\*literal\\* b'), [{ text: 'a *literal* b' }])
    assert.deepEqual(parseInline('**'), [{ text: '**' }])
  })

  test('property: only asterisks (and the backslash escaping one) are ever consumed', () => {
    const strip = (t: string) => t.replace(/[*\\]/g, '')
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('*', '**', '***', ' ', '\\*', 'a', '.')), {
          maxLength: 25,
        }),
        (pieces) => {
          const input = pieces.join('').replace(/\[/g, '(')
          const output = parseInline(input)
            .map((r) => r.text)
            .join('')
          assert.equal(strip(output), strip(input))
        },
      ),
      { numRuns: 500 },
    )
  })

  test('formatting may span a line break inside a paragraph', () => {
    assert.deepEqual(parseSlideMarkdown('**one\ntwo**'), [
      { kind: 'paragraph', runs: [{ text: 'one\ntwo', bold: true }] },
    ])
  })
})

describe('quick publish markdown: blocks', () => {
  test('lines starting with "- " are bullets, nested by two spaces', () => {
    const blocks = parseSlideMarkdown('Intro\n- one\n  - one.a\n    - one.a.i\n- two')
    assert.deepEqual(blocks, [
      { kind: 'paragraph', runs: [{ text: 'Intro' }] },
      {
        kind: 'list',
        items: [
          { level: 0, runs: [{ text: 'one' }] },
          { level: 1, runs: [{ text: 'one.a' }] },
          { level: 2, runs: [{ text: 'one.a.i' }] },
          { level: 0, runs: [{ text: 'two' }] },
        ],
      },
    ])
    assert.equal(
      html('- one\n  - one.a\n    - one.a.i\n- two'),
      '<ul><li>one<ul><li>one.a<ul><li>one.a.i</li></ul></li></ul></li><li>two</li></ul>',
    )
  })

  test('a jump of several levels nests one level deeper; the first bullet is level 0', () => {
    const [list] = parseSlideMarkdown('    - starts indented\n- top\n        - deep')
    assert.deepEqual(list?.kind === 'list' ? list.items.map((i) => i.level) : null, [0, 0, 1])
  })

  test('a tab counts as one level; an indented line continues the bullet above', () => {
    const [list] = parseSlideMarkdown('- a\n\t- b\n  more of b')
    assert.deepEqual(list, {
      kind: 'list',
      items: [
        { level: 0, runs: [{ text: 'a' }] },
        { level: 1, runs: [{ text: 'b\nmore of b' }] },
      ],
    })
  })

  test('blank lines separate paragraphs; line breaks inside one are kept', () => {
    const blocks = parseSlideMarkdown(
      'First line\nsecond line\n\n\r\nNext paragraph\r\n- item\nafter',
    )
    assert.deepEqual(blocks, [
      { kind: 'paragraph', runs: [{ text: 'First line\nsecond line' }] },
      { kind: 'paragraph', runs: [{ text: 'Next paragraph' }] },
      { kind: 'list', items: [{ level: 0, runs: [{ text: 'item' }] }] },
      { kind: 'paragraph', runs: [{ text: 'after' }] },
    ])
    assert.equal(html('a\nb'), '<p>a<br>b</p>')
  })

  test('other list syntaxes and headings are literal text', () => {
    assert.deepEqual(parseSlideMarkdown('* star\n1. one\n# title\n-no space'), [
      { kind: 'paragraph', runs: [{ text: '* star\n1. one\n# title\n-no space' }] },
    ])
    assert.deepEqual(parseSlideMarkdown(''), [])
    assert.deepEqual(parseSlideMarkdown('\n  \n'), [])
  })
})

describe('quick publish markdown: nothing from the content runs or loads', () => {
  test('HTML is shown as text', () => {
    assert.equal(
      html('<script>alert("x")</script> & <img src=x onerror=alert(1)>'),
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;</p>',
    )
    assert.equal(html("**<b>'q'</b>**"), '<p><strong>&lt;b&gt;&#39;q&#39;&lt;/b&gt;</strong></p>')
    assert.equal(html('- <i>&amp;</i>'), '<ul><li>&lt;i&gt;&amp;amp;&lt;/i&gt;</li></ul>')
  })

  test('only http(s) links become links, opened in a new tab without opener or referrer', () => {
    assert.equal(
      html('[docs](https://example.com/a?b=1&c="2")'),
      '<p><a href="https://example.com/a?b=1&amp;c=%222%22" target="_blank" rel="noopener noreferrer">docs<span class="visually-hidden"> (opens in a new tab)</span></a></p>',
    )
    for (const url of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      'file:///etc/passwd',
      '//evil.example/x',
      'https://bank.example@evil.example/',
    ]) {
      const out = html(`[click](${url})`)
      assert.doesNotMatch(out, /<a /, url)
      assert.match(out, /^<p>\[click\]\(/, url)
    }
  })

  test('a link label is text too', () => {
    const out = html('[<img src=x onerror=alert(1)>](https://example.com)')
    assert.match(
      out,
      /^<p><a href="https:\/\/example.com\/" [^>]+>&lt;img src=x onerror=alert\(1\)&gt;/,
    )
  })

  test('blocks handed in directly are escaped and their links checked again', () => {
    const blocks: Block[] = [
      { kind: 'paragraph', runs: [{ text: 'x', link: 'javascript:alert(1)' }] },
      { kind: 'table', rows: [['<th>', '"q"']], header: true },
    ]
    const out = blocksHtml(blocks, 3)
    assert.doesNotMatch(out, /javascript/)
    assert.match(out, /<th scope="col">&lt;th&gt;<\/th><th scope="col">&quot;q&quot;<\/th>/)
    assert.match(out, /aria-label="Slide 3, table 1"/)
  })

  test('property: any content renders to only the tags the subset produces', () => {
    const allowed = new Set(['p', 'br', 'strong', 'em', 'ul', 'li', 'a', 'span'])
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom('*', '**', '***', '- ', '  - ', '\n', '\n\n', '<', '>', '&', '"', "'", '\\*'),
      fc.constantFrom('[a](https://x.example/)', '[b](javascript:alert(1))', '<script>', '](', '['),
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const out = html(pieces.join(''))
        const withoutTags = out.replace(/<\/?([a-z]+)(?: [^<>]*)?>/g, (_, name: string) => {
          assert.ok(allowed.has(name), `unexpected <${name}> in ${out}`)
          return ''
        })
        assert.doesNotMatch(withoutTags, /[<>"]/, out)
        for (const href of out.matchAll(/href="([^"]*)"/g))
          assert.match(href[1] ?? '', /^https?:\/\//)
      }),
      { numRuns: 500 },
    )
  })
})
