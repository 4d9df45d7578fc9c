import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseCmi5, parseTinCan } from '../../../src/modules/scorm/manifest/index.ts'

const CMI5 = `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.com/courses/safety">
    <title><langstring lang="en-US">Workplace Safety</langstring><langstring lang="fr">Sécurité</langstring></title>
    <description><langstring lang="en-US">Two short units.</langstring></description>
  </course>
  <au id="https://example.com/au/intro" moveOn="Completed" launchMethod="OwnWindow">
    <title><langstring lang="en-US">Introduction</langstring></title>
    <url>intro/index.html?lang=en</url>
  </au>
  <block id="https://example.com/block/1">
    <title><langstring lang="en-US">Assessment</langstring></title>
    <au id="https://example.com/au/quiz" moveOn="CompletedAndPassed" masteryScore="0.75" activityType="http://adlnet.gov/expapi/activities/assessment">
      <title><langstring lang="en-US">Quiz</langstring></title>
      <description><langstring lang="en-US">Ten questions.</langstring></description>
      <url>https://content.example.com/quiz/</url>
      <launchParameters>{"mode":"exam"}</launchParameters>
      <entitlementKey>abc</entitlementKey>
    </au>
  </block>
</courseStructure>`

describe('cmi5 course structure', () => {
  const info = parseCmi5(CMI5, ['cmi5.xml', 'intro/index.html'])

  test('course title, description and id', () => {
    assert.equal(info.title, 'Workplace Safety')
    assert.equal(info.description, 'Two short units.')
    assert.equal(info.identifier, 'https://example.com/courses/safety')
  })

  test('AUs with url, launchMethod, moveOn and masteryScore, blocks kept', () => {
    assert.deepEqual(info.cmi5.aus[0], {
      id: 'https://example.com/au/intro',
      title: 'Introduction',
      description: null,
      url: 'intro/index.html?lang=en',
      launchMethod: 'OwnWindow',
      moveOn: 'Completed',
      masteryScore: null,
      activityType: null,
      launchParameters: null,
      entitlementKey: null,
      blockId: null,
    })
    const quiz = info.cmi5.aus[1]
    assert.equal(quiz?.launchMethod, 'AnyWindow')
    assert.equal(quiz?.moveOn, 'CompletedAndPassed')
    assert.equal(quiz?.masteryScore, 0.75)
    assert.equal(quiz?.launchParameters, '{"mode":"exam"}')
    assert.equal(quiz?.blockId, 'https://example.com/block/1')
    assert.deepEqual(info.cmi5.blocks, [
      {
        id: 'https://example.com/block/1',
        title: 'Assessment',
        children: ['https://example.com/au/quiz'],
      },
    ])
  })

  test('launch targets: local files and external URLs', () => {
    assert.deepEqual(
      info.launches.map((l) => [l.kind, l.href, l.path]),
      [
        ['au', 'intro/index.html?lang=en', 'intro/index.html'],
        ['au', 'https://content.example.com/quiz/', null],
      ],
    )
  })

  test('a missing AU file and a bad masteryScore are refused together', () => {
    const broken = CMI5.replace('masteryScore="0.75"', 'masteryScore="75"')
    assert.throws(
      () => parseCmi5(broken, ['cmi5.xml']),
      (err: Error & { details?: { problems: string[] } }) => {
        assert.match(
          err.message,
          /^cmi5.xml: The launch file 'intro\/index.html' of the AU .* is not in the zip. \(and 1 more problem\)$/,
        )
        assert.match(
          err.details?.problems[1] ?? '',
          /masteryScore "75"; it must be between 0 and 1/,
        )
        assert.equal(err.details?.problems.length, 2)
        return true
      },
    )
  })

  test('a structure without AUs is refused', () => {
    assert.throws(
      () =>
        parseCmi5(
          '<courseStructure><course id="c"><title><langstring>x</langstring></title></course></courseStructure>',
          [],
        ),
      /no AU \(assignable unit\) to launch/,
    )
  })
})

const TINCAN = `<?xml version="1.0" encoding="utf-8" ?>
<tincan xmlns="http://projecttincan.com/tincan.xsd">
  <activities>
    <activity id="http://tincanapi.com/GolfExample_TCAPI" type="http://adlnet.gov/expapi/activities/course">
      <name>Golf Example - Tin Can</name>
      <description lang="en-US">An example course.</description>
      <launch lang="en-us">index.html</launch>
    </activity>
    <activity id="http://tincanapi.com/GolfExample_TCAPI/GolfAssessment" type="http://adlnet.gov/expapi/activities/assessment">
      <name>Golf Assessment</name>
    </activity>
  </activities>
</tincan>`

describe('Tin Can package descriptor', () => {
  test('activities, the launch activity and its title', () => {
    const info = parseTinCan(TINCAN, ['tincan.xml', 'index.html'])
    assert.equal(info.title, 'Golf Example - Tin Can')
    assert.equal(info.description, 'An example course.')
    assert.equal(info.identifier, 'http://tincanapi.com/GolfExample_TCAPI')
    assert.equal(info.xapi.activities.length, 2)
    assert.deepEqual(info.launches, [
      {
        id: 'http://tincanapi.com/GolfExample_TCAPI',
        title: 'Golf Example - Tin Can',
        kind: 'activity',
        organizationId: null,
        resourceId: null,
        href: 'index.html',
        path: 'index.html',
      },
    ])
  })

  test('a launch file missing from the zip is refused', () => {
    assert.throws(
      () => parseTinCan(TINCAN, ['tincan.xml']),
      /launch file 'index.html' of the activity .* is not in the zip/,
    )
  })

  test('no launch at all is refused', () => {
    assert.throws(
      () =>
        parseTinCan(
          '<tincan><activities><activity id="a"><name>A</name></activity></activities></tincan>',
          [],
        ),
      /no activity has a <launch> file/,
    )
  })
})
