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

const SCORM2004_4TH = `<?xml version="1.0"?>
<manifest identifier="course.4th" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:lom="http://ltsc.ieee.org/xsd/LOM">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion>
    <lom:lom><lom:general><lom:description><lom:string language="en">Pretest then lessons.</lom:string></lom:description></lom:general></lom:lom>
  </metadata>
  <organizations default="ORG">
    <organization identifier="ORG" adlseq:objectivesGlobalToSystem="false" adlcp:sharedDataGlobalToSystem="false">
      <title>Sequenced course</title>
      <item identifier="PRE" identifierref="SCO">
        <title>Pretest</title>
        <adlcp:timeLimitAction>continue,no message</adlcp:timeLimitAction>
        <adlcp:dataFromLMS>pretest</adlcp:dataFromLMS>
        <adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.75" progressWeight="0.5"/>
        <imsss:sequencing IDRef="common">
          <imsss:sequencingRules>
            <imsss:preConditionRule>
              <imsss:ruleConditions conditionCombination="any">
                <imsss:ruleCondition referencedObjective="obj1" measureThreshold="0.5" operator="not" condition="objectiveMeasureGreaterThan"/>
                <imsss:ruleCondition condition="attempted"/>
              </imsss:ruleConditions>
              <imsss:ruleAction action="skip"/>
            </imsss:preConditionRule>
            <imsss:exitConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="satisfied"/></imsss:ruleConditions><imsss:ruleAction action="exit"/></imsss:exitConditionRule>
            <imsss:postConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="always"/></imsss:ruleConditions><imsss:ruleAction action="continue"/></imsss:postConditionRule>
          </imsss:sequencingRules>
          <imsss:limitConditions attemptLimit="2" attemptAbsoluteDurationLimit="PT1H"/>
          <imsss:rollupRules rollupObjectiveSatisfied="true" objectiveMeasureWeight="0.5">
            <imsss:rollupRule childActivitySet="atLeastCount" minimumCount="2">
              <imsss:rollupConditions conditionCombination="all"><imsss:rollupCondition operator="not" condition="attempted"/></imsss:rollupConditions>
              <imsss:rollupAction action="notSatisfied"/>
            </imsss:rollupRule>
          </imsss:rollupRules>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="pre.primary" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure>
              <imsss:mapInfo targetObjectiveID="g.pre" readSatisfiedStatus="true" writeSatisfiedStatus="true"/>
            </imsss:primaryObjective>
            <imsss:objective objectiveID="obj1"><imsss:mapInfo targetObjectiveID="g.obj1" readNormalizedMeasure="false"/></imsss:objective>
          </imsss:objectives>
          <imsss:randomizationControls selectCount="1" reorderChildren="true" selectionTiming="onEachNewAttempt"/>
          <imsss:deliveryControls tracked="true" completionSetByContent="true" objectiveSetByContent="false"/>
          <adlseq:constrainedChoiceConsiderations preventActivation="true" constrainChoice="false"/>
          <adlseq:rollupConsiderations requiredForSatisfied="ifNotSkipped" measureSatisfactionIfActive="false"/>
          <adlseq:objectives>
            <adlseq:objective objectiveID="pre.primary">
              <adlseq:mapInfo targetObjectiveID="g.pre" writeCompletionStatus="true" writeProgressMeasure="true" readRawScore="false"/>
            </adlseq:objective>
          </adlseq:objectives>
        </imsss:sequencing>
        <adlnav:presentation><adlnav:navigationInterface>
          <adlnav:hideLMSUI>continue</adlnav:hideLMSUI><adlnav:hideLMSUI>suspendAll</adlnav:hideLMSUI>
        </adlnav:navigationInterface></adlnav:presentation>
        <adlcp:data><adlcp:map targetID="notes" writeSharedData="true"/><adlcp:map targetID="prefs" readSharedData="false"/></adlcp:data>
      </item>
      <item identifier="LESSON" identifierref="SCO" parameters="#chapter2"><title>Lesson</title>
        <imsss:sequencing><imsss:deliveryControls tracked="maybe"/></imsss:sequencing>
      </item>
      <imsss:sequencing><imsss:controlMode choice="false" flow="true" forwardOnly="true"/></imsss:sequencing>
    </organization>
  </organizations>
  <resources>
    <resource identifier="SCO" type="webcontent" adlcp:scormType="sco" href="sco.html" xml:base="sco/"><file href="sco.html"/></resource>
  </resources>
  <imsss:sequencingCollection>
    <imsss:sequencing ID="common"><imsss:controlMode choiceExit="false"/></imsss:sequencing>
  </imsss:sequencingCollection>
</manifest>`

describe('SCORM 2004 4th Edition manifest (hand-written)', () => {
  const summary = summarise(SCORM2004_4TH, ['imsmanifest.xml', 'sco/sco.html'])
  const org = summary.scorm?.organizations[0]
  const pre = org?.items[0]

  test('version, edition, description', () => {
    assert.equal(summary.scormVersion, '2004')
    assert.equal(summary.edition, '4th')
    assert.equal(summary.description, 'Pretest then lessons.')
    assert.equal(org?.objectivesGlobalToSystem, false)
    assert.equal(org?.sharedDataGlobalToSystem, false)
    assert.deepEqual(org?.sequencing, {
      controlMode: { choice: false, flow: true, forwardOnly: true },
    })
  })

  test('item runtime data: completion threshold, time limits, shared data, passing score', () => {
    assert.deepEqual(pre?.completionThreshold, {
      completedByMeasure: true,
      minProgressMeasure: 0.75,
      progressWeight: 0.5,
    })
    assert.equal(pre?.timeLimitAction, 'continue,no message')
    assert.equal(pre?.dataFromLms, 'pretest')
    assert.equal(pre?.maxTimeAllowed, 'PT1H')
    assert.equal(pre?.scaledPassingScore, 0.6)
    assert.equal(pre?.masteryScore, null)
    assert.deepEqual(pre?.hideLmsUi, ['continue', 'suspendAll'])
    assert.deepEqual(pre?.sharedData, [
      { targetID: 'notes', readSharedData: true, writeSharedData: true },
      { targetID: 'prefs', readSharedData: false, writeSharedData: true },
    ])
  })

  test('the sequencing block is kept whole, typed, present-only', () => {
    assert.deepEqual(pre?.sequencing, {
      idRef: 'common',
      sequencingRules: {
        pre: [
          {
            conditionCombination: 'any',
            conditions: [
              {
                referencedObjective: 'obj1',
                measureThreshold: 0.5,
                operator: 'not',
                condition: 'objectiveMeasureGreaterThan',
              },
              { condition: 'attempted' },
            ],
            action: 'skip',
          },
        ],
        exit: [{ conditions: [{ condition: 'satisfied' }], action: 'exit' }],
        post: [{ conditions: [{ condition: 'always' }], action: 'continue' }],
      },
      limitConditions: { attemptLimit: 2, attemptAbsoluteDurationLimit: 'PT1H' },
      rollupRules: {
        rollupObjectiveSatisfied: true,
        objectiveMeasureWeight: 0.5,
        rules: [
          {
            childActivitySet: 'atLeastCount',
            minimumCount: 2,
            conditionCombination: 'all',
            conditions: [{ operator: 'not', condition: 'attempted' }],
            action: 'notSatisfied',
          },
        ],
      },
      objectives: {
        primary: {
          objectiveID: 'pre.primary',
          satisfiedByMeasure: true,
          minNormalizedMeasure: 0.6,
          mapInfo: [
            { targetObjectiveID: 'g.pre', readSatisfiedStatus: true, writeSatisfiedStatus: true },
          ],
        },
        others: [
          {
            objectiveID: 'obj1',
            mapInfo: [{ targetObjectiveID: 'g.obj1', readNormalizedMeasure: false }],
          },
        ],
      },
      randomizationControls: {
        selectCount: 1,
        reorderChildren: true,
        selectionTiming: 'onEachNewAttempt',
      },
      deliveryControls: {
        tracked: true,
        completionSetByContent: true,
        objectiveSetByContent: false,
      },
      constrainedChoiceConsiderations: { preventActivation: true, constrainChoice: false },
      rollupConsiderations: {
        requiredForSatisfied: 'ifNotSkipped',
        measureSatisfactionIfActive: false,
      },
      adlObjectives: [
        {
          objectiveID: 'pre.primary',
          mapInfo: [
            {
              targetObjectiveID: 'g.pre',
              writeCompletionStatus: true,
              writeProgressMeasure: true,
              readRawScore: false,
            },
          ],
        },
      ],
    })
  })

  test('sequencingCollection blocks are kept by ID', () => {
    assert.deepEqual(summary.scorm?.sequencingCollection, [
      { id: 'common', controlMode: { choiceExit: false } },
    ])
  })

  test('a wrong value is dropped with a warning, not a refusal', () => {
    assert.deepEqual(org?.items[1]?.sequencing, { deliveryControls: {} })
    assert.match(summary.warnings.join('\n'), /Ignored deliveryControls\/@tracked="maybe"/)
  })

  test('a # parameter becomes the fragment', () => {
    assert.equal(summary.launches[1]?.href, 'sco/sco.html#chapter2')
  })
})
