//! Colours of the timeline: one hue pair per barrier (strong for arrivals, commits and
//! copies, pale for waits), a qualitative palette for the other work and pale greys for the
//! other waits.

/// Colours of working spans that involve no barrier (Tableau 10, without the hues of
/// [`BARRIER_COLOURS`]).
pub(super) const WORK_COLOURS: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"];
/// Colours of waits that involve no barrier: pale, so that the work stands out.
pub(super) const WAIT_COLOURS: [&str; 6] = ["#d4d4d4", "#e5d8bd", "#dadaeb", "#f2f2c4", "#d6ead1", "#f5d5c8"];
/// One hue per barrier (Tableau 20 pairs): arrivals, commits and copies in the strong
/// colour, waits in the pale one, so that each barrier reads as one group.
pub(super) const BARRIER_COLOURS: [(&str, &str); 10] = [
    ("#1f77b4", "#aec7e8"),
    ("#ff7f0e", "#ffbb78"),
    ("#2ca02c", "#98df8a"),
    ("#d62728", "#ff9896"),
    ("#9467bd", "#c5b0d5"),
    ("#8c564b", "#c49c94"),
    ("#e377c2", "#f7b6d2"),
    ("#7f7f7f", "#c7c7c7"),
    ("#bcbd22", "#dbdb8d"),
    ("#17becf", "#9edae5"),
];

/// FNV-1a of `s`.
fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A colour for each category (sorted by name, each marked whether it is a wait): a palette
/// entry picked by hash, the next free one on a collision, a hashed hue once the palette is
/// used up.
pub(super) fn colours(categories: &[(String, bool)]) -> Vec<String> {
    let mut used_work = [false; WORK_COLOURS.len()];
    let mut used_wait = [false; WAIT_COLOURS.len()];
    categories
        .iter()
        .map(|(c, wait)| {
            let h = hash(c);
            let (palette, used): (&[&str], &mut [bool]) =
                if *wait { (&WAIT_COLOURS, &mut used_wait) } else { (&WORK_COLOURS, &mut used_work) };
            let n = palette.len();
            let free = (0..n).map(|k| (h as usize + k) % n).find(|&i| !used[i]);
            match free {
                Some(i) => {
                    used[i] = true;
                    palette[i].to_string()
                }
                None if *wait => format!("hsl({},60%,85%)", h % 360),
                None => format!("hsl({},55%,50%)", h % 360),
            }
        })
        .collect()
}

/// The colour of each category `(name, is wait, barrier)`: the barrier's hue pair when it
/// has a barrier (pale for a wait), else [`colours`].
pub(super) fn grouped_colours(categories: &[(String, bool, Option<String>)]) -> Vec<String> {
    let barriers: Vec<&str> = {
        let mut b: Vec<&str> = categories.iter().filter_map(|c| c.2.as_deref()).collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let plain: Vec<(String, bool)> = categories.iter().filter(|c| c.2.is_none()).map(|c| (c.0.clone(), c.1)).collect();
    let mut plain_colours = colours(&plain).into_iter();
    categories
        .iter()
        .map(|(_, wait, barrier)| match barrier {
            Some(b) => {
                let i = barriers.iter().position(|x| x == b).unwrap_or(0);
                match BARRIER_COLOURS.get(i) {
                    Some(&(strong, pale)) => (if *wait { pale } else { strong }).to_string(),
                    None if *wait => format!("hsl({},60%,85%)", (i * 47) % 360),
                    None => format!("hsl({},60%,40%)", (i * 47) % 360),
                }
            }
            None => plain_colours.next().unwrap_or_else(|| "#999".to_string()),
        })
        .collect()
}
