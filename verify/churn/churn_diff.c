/* SPDX-License-Identifier: Apache-2.0 */
/* churn_diff.c - the difference of two catalogue snapshots, keyed by offering
 * id: additions, removals, tier/mechanism changes, status changes, and
 * renames (an entry whose renamed_from lists an id that disappeared). */
#include "churn.h"

#include <string.h>

void churn_claim_clear(churn_claim *c)
{
	free(c->id);
	free(c->path);
	for (size_t i = 0; i < c->n_renamed_from; i++)
		free(c->renamed_from[i]);
	free(c->renamed_from);
	memset(c, 0, sizeof *c);
}

void churn_changes_clear(churn_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].id);
		free(c->items[i].old_id);
		free(c->items[i].old_path);
		free(c->items[i].new_path);
	}
	free(c->items);
	memset(c, 0, sizeof *c);
}

static int change_add(churn_changes *out, churn_kind kind, const churn_claim *a,
                      const churn_claim *b, isotier_error *err)
{
	if (out->n == out->cap) {
		size_t ncap = out->cap ? out->cap * 2 : 16;
		churn_change *items = realloc(out->items, ncap * sizeof *items);
		if (!items)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		out->items = items;
		out->cap = ncap;
	}
	const churn_claim *either = b ? b : a;
	if (!either)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "change_add: no claim");
	churn_change *c = &out->items[out->n];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->id = strdup(either->id);
	bool renamed = a && b && strcmp(a->id, b->id);
	if (renamed)
		c->old_id = strdup(a->id);
	if (a) {
		c->from = a->claim;
		c->old_path = strdup(a->path);
		memcpy(c->old_status, a->status, sizeof c->old_status);
	}
	if (b) {
		c->to = b->claim;
		c->new_path = strdup(b->path);
		memcpy(c->new_status, b->status, sizeof c->new_status);
	}
	if (!c->id || (renamed && !c->old_id) || (a && !c->old_path) || (b && !c->new_path)) {
		free(c->id);
		free(c->old_id);
		free(c->old_path);
		free(c->new_path);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	if (a && b) {
		c->tier_changed = a->claim.tier != b->claim.tier;
		c->mechanism_changed = strcmp(a->claim.mechanism, b->claim.mechanism) != 0;
		c->scope_changed = strcmp(a->claim.scope, b->claim.scope) != 0;
		c->status_changed = strcmp(a->status, b->status) != 0;
	}
	out->n++;
	return 0;
}

static int claim_id_cmp(const void *key, const void *item)
{
	return strcmp(key, ((const churn_claim *)item)->id);
}

static const churn_claim *find_claim(const churn_snapshot *s, const char *id)
{
	return s->n ? bsearch(id, s->items, s->n, sizeof *s->items, claim_id_cmp) : NULL;
}

/*
 * renamed_of[j]: the index in old of the id new_->items[j] was renamed from,
 * or SIZE_MAX. Only an id absent from new_ pairs, with the first new entry
 * (by id) that lists it; consumed[i] marks the old entries so paired.
 */
static void pair_renames(size_t *renamed_of, bool *consumed, const churn_snapshot *old,
                         const churn_snapshot *new_)
{
	for (size_t j = 0; j < new_->n; j++) {
		const churn_claim *b = &new_->items[j];
		renamed_of[j] = SIZE_MAX;
		if (find_claim(old, b->id))
			continue; /* not new: a same-id change, never a rename */
		for (size_t k = 0; k < b->n_renamed_from && renamed_of[j] == SIZE_MAX; k++) {
			const churn_claim *a = find_claim(old, b->renamed_from[k]);
			if (!a || find_claim(new_, a->id) || consumed[a - old->items])
				continue;
			consumed[a - old->items] = true;
			renamed_of[j] = (size_t)(a - old->items);
		}
	}
}

int churn_diff(churn_changes *out, const churn_snapshot *old, const churn_snapshot *new_,
               isotier_error *err)
{
	cleanup_free bool *consumed = calloc(old->n + 1, sizeof *consumed);
	cleanup_free size_t *renamed_of = calloc(new_->n + 1, sizeof *renamed_of);
	if (!consumed || !renamed_of)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	pair_renames(renamed_of, consumed, old, new_);
	size_t i = 0, j = 0;
	int rc = 0;
	while (rc == 0 && (i < old->n || j < new_->n)) {
		int cmp = i == old->n    ? 1
		          : j == new_->n ? -1
		                         : strcmp(old->items[i].id, new_->items[j].id);
		if (cmp < 0) {
			if (!consumed[i])
				rc = change_add(out, CHURN_REMOVED, &old->items[i], NULL, err);
			i++;
		} else if (cmp > 0) {
			if (renamed_of[j] != SIZE_MAX)
				rc = change_add(out, CHURN_CHANGED, &old->items[renamed_of[j]],
				                &new_->items[j], err);
			else
				rc = change_add(out, CHURN_ADDED, NULL, &new_->items[j], err);
			j++;
		} else {
			const churn_claim *a = &old->items[i], *b = &new_->items[j];
			if (!churn_claim_eq(&a->claim, &b->claim) || strcmp(a->status, b->status))
				rc = change_add(out, CHURN_CHANGED, a, b, err);
			i++;
			j++;
		}
	}
	return rc;
}
