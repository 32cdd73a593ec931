/*
 * lifecycle.h - (re)initialisation and shutdown (lifecycle.c), the top of
 * the provider below the exported ABIs. Lock held.
 */
#ifndef HIPWIRE_PROVIDER_LIFECYCLE_H
#define HIPWIRE_PROVIDER_LIFECYCLE_H

void provider_init_locked(void);
void provider_shutdown_locked(void);

#endif
