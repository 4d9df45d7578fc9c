/**
 * Course creation: quick publish from slides, and PowerPoint conversion with live job status.
 * Both add a package to the current mode; viewers see what exists but cannot create.
 */
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { PageFrame } from '../ui.tsx'
import { ConversionForm } from './create-conversion.tsx'
import { QuickPublishForm } from './create-quick-publish.tsx'

export function CreatePage(_props: { params: Record<string, string> }) {
  const { canManage, mode } = useSession()
  return (
    <PageFrame title="Course creation">
      <p>
        Make a hosted SCORM course without an authoring tool. New courses appear on the{' '}
        <a href={link('/packages')}>Packages</a> page ({mode} mode).
      </p>
      {canManage ? (
        <div class="create-columns">
          <QuickPublishForm />
          <ConversionForm />
        </div>
      ) : (
        <p>Only an admin or an owner can create courses.</p>
      )}
    </PageFrame>
  )
}
