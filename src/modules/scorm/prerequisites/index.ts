export {
  evaluateExpr,
  type LessonStatus,
  lessonStatusOf,
  type ParseResult,
  type PrerequisiteExpr,
  type PrerequisitesVerdict,
  parsePrerequisites,
  prerequisitesMet,
  referencedItems,
  type StatusOf,
} from './prerequisites.evaluator.ts'
