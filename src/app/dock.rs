//! The central area as docked panes (egui_tiles): the viewport, and beside or below it the panes the user opens:
//! the state machine graph, the curves view and the skate map (the graph and the curves as two tabs of one place
//! when both are open). A pane's tab drags it anywhere in the area
//! (beside, below, or as a tab of another), its edges resize it; its Close button (or the toggle that opened it)
//! closes it. The viewport stays, and shows no tab while it is alone in its place. Nothing floats over the
//! viewport. The arrangement is saved with the window's layout and comes back at the next start.

use egui_tiles::{Container, Linear, LinearDir, Tile, TileId, Tiles, Tree, UiResponse};
use serde::{Deserialize, Serialize};

use super::command::Commands;
use super::editor::EditorState;
use super::panels::curves::CurvesPanel;
use super::panels::inspector::blend::{BlendPanel, skate_map_status};
use super::panels::inspector::states::StatesPanel;
use super::panels::viewport::ViewportPanel;

/// One pane of the dock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pane {
    /// The 3D viewport (always there).
    Viewport,
    /// The state machine's graph.
    StateMachine,
    /// The selected joint's curves.
    Curves,
    /// The blend space's skate map.
    SkateMap,
}

impl Pane {
    /// Its tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Viewport => "Viewport",
            Pane::StateMachine => "State graph",
            Pane::Curves => "Curves",
            Pane::SkateMap => "Skate map",
        }
    }

    /// Its share of the space it opens in, against the viewport's 1. The curves open below everything (where
    /// they line up with the timeline's ruler) and leave the viewport four fifths of the height; the graph opens
    /// below the viewport (as wide as it, as Unity's Animator window usually sits), the skate map beside it. The
    /// graph and the curves open as two tabs of one place when the other is already open.
    fn share(self) -> f32 {
        match self {
            Pane::Curves => 0.24,
            Pane::StateMachine => 1.0,
            _ => 0.66,
        }
    }
}

/// The docked panes and their arrangement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Dock {
    tree: Tree<Pane>,
}

impl Default for Dock {
    fn default() -> Self {
        Dock {
            tree: Tree::new_tabs(egui::Id::unique("animtune_dock"), vec![Pane::Viewport]),
        }
    }
}

/// How the dock is simplified after each change: every pane keeps a tab (its handle to drag and close it).
pub fn simplification() -> egui_tiles::SimplificationOptions {
    egui_tiles::SimplificationOptions {
        all_panes_must_have_tabs: true,
        ..Default::default()
    }
}

impl Dock {
    /// A dock read back from a saved layout, or the default when it does not hold a viewport (every pane
    /// reachable from the root, each once).
    pub fn checked(self) -> Self {
        let panes: Vec<Pane> = self.panes();
        let unique = panes
            .iter()
            .enumerate()
            .all(|(i, p)| !panes[..i].contains(p));
        if panes.contains(&Pane::Viewport) && unique {
            self
        } else {
            Dock::default()
        }
    }

    /// The panes reachable from the root.
    fn panes(&self) -> Vec<Pane> {
        let mut out = Vec::new();
        let mut stack: Vec<TileId> = self.tree.root.into_iter().collect();
        let mut seen = 0;
        while let Some(id) = stack.pop() {
            seen += 1;
            if seen > 64 {
                break;
            }
            match self.tree.tiles.get(id) {
                Some(Tile::Pane(p)) => out.push(*p),
                Some(Tile::Container(c)) => stack.extend(c.children()),
                None => {}
            }
        }
        out
    }

    /// Whether `pane` is in the dock.
    pub fn is_open(&self, pane: Pane) -> bool {
        self.panes().contains(&pane)
    }

    /// Opens or closes `pane` (the viewport stays). Closing a pane hidden behind another tab brings it to the
    /// front instead: the toggle that would close it is what a user clicks to see it.
    pub fn set_open(&mut self, pane: Pane, open: bool) {
        if pane == Pane::Viewport || open == self.is_open(pane) {
            return;
        }
        if open {
            self.open(pane);
        } else if let Some(id) = self.tree.tiles.find_pane(&pane) {
            let hidden_tab =
                self.tree
                    .tiles
                    .parent_of(id)
                    .and_then(|t| match self.tree.tiles.get_mut(t) {
                        Some(Tile::Container(Container::Tabs(tabs))) if tabs.active != Some(id) => {
                            Some(tabs)
                        }
                        _ => None,
                    });
            if let Some(tabs) = hidden_tab {
                tabs.set_active(id);
                return;
            }
            self.tree.remove_recursively(id);
            self.tree.simplify(&simplification());
        }
    }

    fn open(&mut self, pane: Pane) {
        let Some(root) = self.tree.root else {
            *self = Dock::default();
            return self.open(pane);
        };
        let tiles = &mut self.tree.tiles;
        // The graph and the curves share a place as two tabs (as Unity's Animator and Animation windows often
        // do): opening one beside the other squeezed both.
        let partner = match pane {
            Pane::Curves => Some(Pane::StateMachine),
            Pane::StateMachine => Some(Pane::Curves),
            _ => None,
        };
        let partner_tabs = partner
            .and_then(|p| tiles.find_pane(&p))
            .and_then(|p| tiles.parent_of(p))
            .filter(|&t| matches!(tiles.get(t), Some(Tile::Container(Container::Tabs(_)))));
        if let Some(tabs) = partner_tabs {
            let id = tiles.insert_pane(pane);
            if let Some(Tile::Container(Container::Tabs(t))) = tiles.get_mut(tabs) {
                t.add_child(id);
                t.set_active(id);
            }
            return;
        }
        let id = tiles.insert_pane(pane);
        let tab = tiles.insert_tab_tile(vec![id]);
        let dir = if pane == Pane::SkateMap {
            LinearDir::Horizontal
        } else {
            LinearDir::Vertical
        };
        // The curves go below everything; the graph below the viewport, the skate map beside it.
        let viewport = tiles
            .find_pane(&Pane::Viewport)
            .and_then(|v| tiles.parent_of(v))
            .unwrap_or(root);
        let anchor = if pane == Pane::Curves { root } else { viewport };
        // Into the line that already runs that way (the root column, or the viewport's column or row), right
        // after the anchor...
        let line = if pane == Pane::Curves {
            Some(root)
        } else {
            tiles.parent_of(anchor)
        };
        if let Some(Tile::Container(Container::Linear(l))) = line.and_then(|p| tiles.get_mut(p))
            && l.dir == dir
        {
            let at = l
                .children
                .iter()
                .position(|&c| c == anchor)
                .map_or(l.children.len(), |i| i + 1);
            // Its share against what it opens beside (the anchor), or for the curves against the whole column.
            let base = if pane == Pane::Curves {
                l.children.iter().map(|&c| l.shares[c]).sum::<f32>()
            } else {
                l.shares[anchor]
            };
            l.children.insert(at, tab);
            l.shares.set_share(tab, pane.share() * base.max(0.01));
            return;
        }
        // ...or a new line in the anchor's place.
        let parent = tiles.parent_of(anchor);
        let mut linear = Linear::new(dir, vec![anchor, tab]);
        linear.shares.set_share(anchor, 1.0);
        linear.shares.set_share(tab, pane.share());
        let new_line = tiles.insert_container(linear);
        match parent.and_then(|p| tiles.get_mut(p)) {
            Some(Tile::Container(c)) => replace_child(c, anchor, new_line),
            _ => self.tree.root = Some(new_line),
        }
    }

    /// Draws the dock, each pane by `panes`.
    pub fn ui(&mut self, ui: &mut egui::Ui, panes: &mut DockPanes) {
        let tiles = &self.tree.tiles;
        panes.viewport_alone = tiles
            .find_pane(&Pane::Viewport)
            .and_then(|v| tiles.parent_of(v))
            .filter(|&t| match tiles.get(t) {
                Some(Tile::Container(Container::Tabs(tabs))) => !tab_bar_visible(tiles, tabs),
                _ => false,
            });
        self.tree.ui(panes, ui);
    }

    /// Where `pane` was last drawn (None when it is closed).
    pub fn rect(&self, pane: Pane) -> Option<egui::Rect> {
        let id = self.tree.tiles.find_pane(&pane)?;
        self.tree.tiles.rect(id)
    }
}

/// What draws the panes: the editor, where panels push their commands, and each pane's panel.
pub struct DockPanes<'a> {
    /// The editor the panes read.
    pub e: &'a EditorState,
    /// Where they push commands.
    pub out: &'a mut Commands,
    /// The viewport's panel.
    pub viewport: &'a mut ViewportPanel,
    /// The curves view.
    pub curves: &'a mut CurvesPanel,
    /// The States tab's panel, which draws the graph.
    pub states: &'a mut StatesPanel,
    /// The skate map's canvas.
    pub skate_map: &'a mut BlendPanel,
    /// The last evaluation's time, for the viewport's read-out.
    pub eval_micros: f32,
    /// The tabs container holding the viewport alone (no tab bar over it).
    pub viewport_alone: Option<TileId>,
    /// Panes whose Close button was clicked this frame.
    pub closed: Vec<Pane>,
}

impl egui_tiles::Behavior<Pane> for DockPanes<'_> {
    fn pane_ui(&mut self, ui: &mut egui::Ui, _tile: TileId, pane: &mut Pane) -> UiResponse {
        let (e, out) = (self.e, &mut *self.out);
        let pane = *pane;
        let close = |ui: &mut egui::Ui, closed: &mut Vec<Pane>| {
            if ui
                .button("Close")
                .on_hover_text(format!("Close the {} pane", pane.title().to_lowercase()))
                .clicked()
            {
                closed.push(pane);
            }
        };
        match pane {
            Pane::Viewport => self.viewport.ui(ui, e, out, self.eval_micros),
            Pane::StateMachine => {
                // Wrapped: in a narrow pane the Layer drop-down goes to a second row rather than past the edge.
                let frame_all = ui
                    .horizontal_wrapped(|ui| {
                        close(ui, &mut self.closed);
                        let frame_all = ui
                            .button("Frame all")
                            .on_hover_text("Fit every state in the view (F over the graph)")
                            .clicked();
                        self.states.layer_choice(ui, e, out);
                        frame_all
                    })
                    .inner;
                self.states.graph_pane(ui, e, out, frame_all);
            }
            Pane::Curves => self.curves.ui(ui, e, out),
            Pane::SkateMap => {
                ui.horizontal(|ui| {
                    close(ui, &mut self.closed);
                    skate_map_status(ui, e);
                });
                self.skate_map.skate_map_pane(ui, e, out);
            }
        }
        UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn on_tab_button(
        &mut self,
        _tiles: &mut Tiles<Pane>,
        _tile: TileId,
        response: egui::Response,
    ) -> egui::Response {
        response.on_hover_text(
            "Drag the tab to dock the pane elsewhere: beside or below another pane, or as a tab of it",
        )
    }

    fn is_tab_bar_visible(&self, tile: TileId, _tabs: &egui_tiles::Tabs) -> bool {
        self.viewport_alone != Some(tile)
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        simplification()
    }
}

/// Puts `new` where `old` was among `container`'s children.
fn replace_child(container: &mut Container, old: TileId, new: TileId) {
    match container {
        Container::Linear(l) => {
            if let Some(c) = l.children.iter_mut().find(|c| **c == old) {
                *c = new;
            }
            let share = l.shares[old];
            l.shares.set_share(new, share);
        }
        Container::Tabs(t) => {
            if let Some(c) = t.children.iter_mut().find(|c| **c == old) {
                *c = new;
            }
            if t.active == Some(old) {
                t.active = Some(new);
            }
        }
        Container::Grid(_) => {
            container.retain(|c| c != old);
            container.add_child(new);
        }
    }
}

/// Whether a tab bar shows over `tabs`: not over the viewport alone (it keeps its whole height), over every
/// other pane (its tab drags and closes it).
pub fn tab_bar_visible(tiles: &Tiles<Pane>, tabs: &egui_tiles::Tabs) -> bool {
    !(tabs.children.len() == 1 && tiles.get_pane(&tabs.children[0]) == Some(&Pane::Viewport))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_open_beside_or_below_the_viewport_and_close_again() {
        let mut dock = Dock::default();
        assert!(dock.is_open(Pane::Viewport) && !dock.is_open(Pane::Curves));
        dock.set_open(Pane::StateMachine, true);
        dock.set_open(Pane::SkateMap, true);
        dock.set_open(Pane::Curves, true);
        for p in [
            Pane::Viewport,
            Pane::StateMachine,
            Pane::SkateMap,
            Pane::Curves,
        ] {
            assert!(dock.is_open(p), "{p:?}");
        }
        // One column: the viewport's row (the viewport, the skate map beside it), then the graph and the curves
        // as two tabs of one place, the curves shown.
        let root = dock.tree.root.unwrap();
        let Some(Tile::Container(Container::Linear(col))) = dock.tree.tiles.get(root) else {
            panic!("root {:?}", dock.tree.tiles.get(root));
        };
        assert_eq!(col.dir, LinearDir::Vertical);
        let pane_under = |tile: TileId| {
            let Some(Tile::Container(Container::Tabs(t))) = dock.tree.tiles.get(tile) else {
                return None;
            };
            dock.tree.tiles.get_pane(&t.children[0]).copied()
        };
        assert_eq!(col.children.len(), 2);
        assert_eq!(pane_under(col.children[1]), Some(Pane::StateMachine));
        let Some(Tile::Container(Container::Tabs(shared))) = dock.tree.tiles.get(col.children[1])
        else {
            panic!("no tabs below the viewport");
        };
        assert_eq!(shared.children.len(), 2);
        assert_eq!(
            shared
                .active
                .and_then(|t| dock.tree.tiles.get_pane(&t).copied()),
            Some(Pane::Curves)
        );
        let Some(Tile::Container(Container::Linear(row))) = dock.tree.tiles.get(col.children[0])
        else {
            panic!("no row");
        };
        assert_eq!(row.dir, LinearDir::Horizontal);
        assert_eq!(pane_under(row.children[0]), Some(Pane::Viewport));
        assert_eq!(pane_under(row.children[1]), Some(Pane::SkateMap));
        // The graph's toggle brings its hidden tab to the front, then closes it.
        dock.set_open(Pane::StateMachine, false);
        assert!(dock.is_open(Pane::StateMachine));
        dock.set_open(Pane::StateMachine, false);
        dock.set_open(Pane::Viewport, false);
        assert!(!dock.is_open(Pane::StateMachine) && dock.is_open(Pane::Viewport));
        let saved = serde_json::to_string(&dock).unwrap();
        let back: Dock = serde_json::from_str::<Dock>(&saved).unwrap().checked();
        assert!(back.is_open(Pane::Curves) && back.is_open(Pane::SkateMap));
    }

    #[test]
    fn a_saved_dock_without_the_viewport_is_replaced_by_the_default() {
        let broken = Dock {
            tree: Tree::new_tabs(
                egui::Id::unique("animtune_dock"),
                vec![Pane::Curves, Pane::Curves],
            ),
        };
        let dock = broken.checked();
        assert!(dock.is_open(Pane::Viewport) && !dock.is_open(Pane::Curves));
    }
}
