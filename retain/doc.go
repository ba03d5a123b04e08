// Package retain owns retained `@shell/<id>` scripts: the per-thread
// scripts/ store confined with os.Root, artifact and thread id validation,
// expiry and shutdown cleanup, reference resolution, the LINE:HASH row
// format, and the verified hpatch edit grammar applied to retained scripts.
package retain
