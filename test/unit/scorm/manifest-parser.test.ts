import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  type ManifestSummary,
  summarisePackage,
} from '../../../src/modules/scorm/manifest/index.ts'

function summarise(text: string, files: string[] | null): ManifestSummary {
  return summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text,
    files,
    totalBytes: 0,
  })
}

const SCORM12 = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="course.12" version="1.0" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2" xmlns:imsmd="http://www.imsglobal.org/xsd/imsmd_rootv1p2p1">
  <metadata>
    <schema>ADL SCORM</schema><schemaversion>1.2</schemaversion>
    <imsmd:lom><imsmd:general>
      <imsmd:title><imsmd:langstring xml:lang="en">Metadata title</imsmd:langstring></imsmd:title>
      <imsmd:description><imsmd:langstring xml:lang="en">Learn   the
        basics.</imsmd:langstring></imsmd:description>
    </imsmd:general></imsmd:lom>
  </metadata>
  <organizations default="ORG">
    <organization identifier="ORG">
      <title>  Fire
        safety  </title>
      <item identifier="M1" isvisible="true">
        <title>Module 1</title>
        <item identifier="L1" identifierref="R1" parameters="?lesson=1">
          <title>Lesson 1</title>
          <adlcp:masteryscore>80</adlcp:masteryscore>
          <adlcp:maxtimeallowed>00:30:00</adlcp:maxtimeallowed>
          <adlcp:timelimitaction>exit,message</adlcp:timelimitaction>
          <adlcp:datafromlms>mode=quiz</adlcp:datafromlms>
          <adlcp:prerequisites type="aicc_script">L0</adlcp:prerequisites>
        </item>
        <item identifier="L2" identifierref="R2" isvisible="false"><title>Glossary</title></item>
      </item>
    </organization>
  </organizations>
  <resources xml:base="content/">
    <resource identifier="R1" type="webcontent" adlcp:scormtype="sco" href="lesson1/index.html">
      <file href="lesson1/index.html"/><file href="lesson1/missing.js"/>
      <dependency identifierref="SHARED"/><dependency identifierref="NOPE"/>
    </resource>
    <resource identifier="R2" type="webcontent" adlcp:scormtype="asset" href="glossary.pdf#page=2"/>
    <resource identifier="SHARED" type="webcontent" adlcp:scormtype="asset"><file href="shared/app.js"/></resource>
  </resources>
</manifest>`

const FILES_12 = [
  'imsmanifest.xml',
  'content/lesson1/index.html',
  'content/glossary.pdf',
  'content/shared/app.js',
]

describe('SCORM 1.2 manifest', () => {
  const summary = summarise(SCORM12, FILES_12)
  const org = summary.scorm?.organizations[0]
  const lesson = org?.items[0]?.children[0]

  test('title from the organization, description from the metadata', () => {
    assert.equal(summary.title, 'Fire safety')
    assert.equal(summary.description, 'Learn the basics.')
    assert.equal(summary.identifier, 'course.12')
  })

  test('item data for the runtime', () => {
    assert.equal(lesson?.masteryScore, 80)
    assert.equal(lesson?.maxTimeAllowed, '00:30:00')
    assert.equal(lesson?.timeLimitAction, 'exit,message')
    assert.equal(lesson?.dataFromLms, 'mode=quiz')
    assert.equal(lesson?.prerequisites, 'L0')
    assert.equal(lesson?.isvisible, true)
    assert.equal(org?.items[0]?.children[1]?.isvisible, false)
  })

  test('launches use xml:base and parameters; assets are launchable too', () => {
    assert.deepEqual(
      summary.launches.map((l) => [l.id, l.kind, l.href, l.path]),
      [
        ['L1', 'sco', 'content/lesson1/index.html?lesson=1', 'content/lesson1/index.html'],
        ['L2', 'asset', 'content/glossary.pdf#page=2', 'content/glossary.pdf'],
      ],
    )
  })

  test('resources keep files and dependencies; sloppy ones only warn', () => {
    const r1 = summary.scorm?.resources[0]
    assert.equal(r1?.base, 'content/')
    assert.deepEqual(r1?.files, ['content/lesson1/index.html', 'content/lesson1/missing.js'])
    assert.deepEqual(r1?.dependencies, ['SHARED', 'NOPE'])
    assert.match(summary.warnings.join('\n'), /depends on 'NOPE', which is not in the manifest/)
    assert.match(
      summary.warnings.join('\n'),
      /lists files that are not in the zip: 'content\/lesson1\/missing.js'/,
    )
  })
})

describe('SCORM 2004 2nd and 3rd Edition manifests (hand-written)', () => {
  const second = `<manifest identifier="c2" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
    <metadata><schema>ADL SCORM</schema><schemaversion>CAM 1.3</schemaversion></metadata>
    <organizations default="o"><organization identifier="o"><title>Second edition</title>
      <item identifier="i" identifierref="r"><title>Only SCO</title>
        <adlcp:completionThreshold>0.8</adlcp:completionThreshold></item>
    </organization></organizations>
    <resources><resource identifier="r" type="webcontent" adlcp:scormType="sco" href="index.htm"/></resources>
  </manifest>`

  test('2nd Edition ("CAM 1.3") with a 3rd-Edition-style threshold as text', () => {
    const s = summarise(second, ['index.htm'])
    assert.equal(s.scormVersion, '2004')
    assert.equal(s.edition, '2nd')
    assert.equal(s.title, 'Second edition')
    assert.deepEqual(s.scorm?.organizations[0]?.items[0]?.completionThreshold, {
      completedByMeasure: true,
      minProgressMeasure: 0.8,
      progressWeight: 1,
    })
  })
})
